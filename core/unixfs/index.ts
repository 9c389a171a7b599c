// UnixFS import: chunkers, file and directory builders, and the `ipfs add` importer.
export { importFiles, type ImportEntry, type BlockSink, type LeafPosition, type ImportedNode, type ImportOptions } from './importer.js'
export { resolveImportSettings, validateImportConfig, type ImportSettings, type ImportFlags, type ImportConfig } from './settings.js'
export { parseChunker, type Chunker } from './chunker/index.js'
export type { UnixTime } from './pb.js'
