/** A splitter: turns a file's byte stream into its chunks (never empty chunks; nothing for an empty stream). */
export type Chunker = (source: AsyncIterable<Uint8Array>) => AsyncIterable<Uint8Array>
