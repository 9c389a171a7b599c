// Fixed-size chunker (boxo chunker/splitting.go sizeSplitterv2).
import type { Chunker } from './types.js'

/** Slack above which a short last chunk is copied into a buffer of its own size (boxo reallocChunk). */
const MAX_OVER_ALLOC = 1024

/**
 * Chunks of exactly `size` bytes (the last one shorter). A chunk that lies inside one input piece
 * is yielded as a view of it, without copying; only chunks spanning pieces are assembled.
 */
export const fixedSize = (size: number): Chunker => async function * fixedSizeChunker (source) {
  let buf: Buffer | undefined
  let filled = 0
  for await (const piece of source) {
    const len = piece.length
    let off = 0
    while (off < len) {
      if (filled === 0 && len - off >= size) {
        yield off === 0 && len === size ? piece : piece.subarray(off, off + size)
        off += size
        continue
      }
      buf ??= Buffer.allocUnsafeSlow(size)
      const n = Math.min(size - filled, len - off)
      buf.set(off === 0 && n === len ? piece : piece.subarray(off, off + n), filled)
      filled += n
      off += n
      if (filled === size) {
        yield buf
        buf = undefined
        filled = 0
      }
    }
  }
  if (buf != null && filled > 0) {
    yield size - filled > MAX_OVER_ALLOC ? Buffer.from(buf.subarray(0, filled)) : buf.subarray(0, filled)
  }
}
