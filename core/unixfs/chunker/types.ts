/** A splitter: turns a file's byte stream into its chunks (never empty chunks; nothing for an empty stream). */
export type Chunker = ((source: AsyncIterable<Uint8Array>) => AsyncIterable<Uint8Array>) & {
  /** the fixed-size chunker's size: content no longer than this (and not empty) is one chunk, itself */
  fixedSize?: number
}
