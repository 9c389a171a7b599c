// Fixed-size chunker (boxo chunker/splitting.go sizeSplitterv2).
import type { Chunker } from './types.js'
import { allocChunk } from '../pb.js'

/** One buffer holding `parts` (which together have `length` bytes), framable as a leaf in place. */
function join (parts: Uint8Array[], length: number): Uint8Array {
  const out = allocChunk(length)
  let off = 0
  for (const p of parts) { out.set(p, off); off += p.length }
  return out
}

/**
 * Chunks of exactly `size` bytes (the last one shorter). A chunk that lies inside one input piece
 * is yielded as a view of it, without copying; a chunk spanning pieces is assembled into a buffer of
 * exactly its length once complete, so a small file costs no `size`-byte allocation.
 */
export const fixedSize = (size: number): Chunker => Object.assign(async function * fixedSizeChunker (source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  // views of the pieces of the chunk being assembled (fewer than `size` bytes in all)
  let held: Uint8Array[] = []
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
      const n = Math.min(size - filled, len - off)
      held.push(off === 0 && n === len ? piece : piece.subarray(off, off + n))
      filled += n
      off += n
      if (filled === size) {
        yield join(held, size)
        held = []
        filled = 0
      }
    }
  }
  if (filled > 0) yield held.length === 1 ? held[0] : join(held, filled)
}, { fixedSize: size })
