// Chunker spec parsing with boxo chunker/parse.go's rules and error texts.
import { RpcError } from '../../errors.js'
import { goAtoi } from '../go.js'
import { buzhash } from './buzhash.js'
import { fixedSize } from './fixed.js'
import { rabin } from './rabin.js'
import type { Chunker } from './types.js'

export type { Chunker } from './types.js'
export { fixedSize } from './fixed.js'
export { buzhash, BUZ_MIN, BUZ_MAX } from './buzhash.js'
export { rabin, IPFS_RABIN_POLY } from './rabin.js'

/** boxo chunk.DefaultBlockSize */
export const DEFAULT_BLOCK_SIZE = 256 * 1024
/** boxo chunk.BlockSizeLimit (bitswap's 2 MiB) */
export const BLOCK_SIZE_LIMIT = 2 * 1024 * 1024
/** boxo chunk.ChunkSizeLimit: BlockSizeLimit minus a 256-byte framing budget */
export const CHUNK_SIZE_LIMIT = BLOCK_SIZE_LIMIT - 256

const ERR_SIZE = 'chunker size must be greater than 0'
const ERR_SIZE_MAX = `chunker parameters may not exceed the maximum chunk size of ${CHUNK_SIZE_LIMIT}`
const ERR_RABIN_MIN = 'rabin min must be greater than 16'

function atoi (s: string): number {
  try { return goAtoi(s) } catch (err) { throw new RpcError((err as Error).message) }
}

/**
 * Parses a chunker spec as Kubo does (`size-N`, `rabin`, `rabin-AVG`, `rabin-MIN-AVG-MAX` with
 * optional `min:`/`avg:`/`max:` labels, `buzhash`; `""`/`default` = size-262144) and returns
 * the chunker. Throws RpcError with boxo's message for a bad spec.
 */
export function parseChunker (spec: string): Chunker {
  if (spec === '' || spec === 'default') return fixedSize(DEFAULT_BLOCK_SIZE)
  const dash = spec.indexOf('-')
  const name = dash < 0 ? spec : spec.slice(0, dash)
  switch (name) {
    case 'size': return parseSize(spec)
    case 'rabin': return parseRabin(spec)
    case 'buzhash': return buzhash()
    default: throw new RpcError(`unrecognized chunker option: ${spec}`)
  }
}

function parseSize (spec: string): Chunker {
  const parts = spec.split('-')
  if (parts.length !== 2) throw new RpcError('incorrect chunker string format (expected size-{size})')
  const size = atoi(parts[1])
  if (size <= 0) throw new RpcError(ERR_SIZE)
  if (size > CHUNK_SIZE_LIMIT) throw new RpcError(ERR_SIZE_MAX)
  return fixedSize(size)
}

/** Go's Math.fround-based `int(float32(size)*1.5)` */
const f32times15 = (n: number): number => Math.trunc(Math.fround(Math.fround(n) * 1.5))

/** uint64(n) for the values boxo passes on unchecked (a negative avg wraps to a huge number) */
const asUint64 = (n: number): number => n < 0 ? 2 ** 64 + n : n

function parseRabin (spec: string): Chunker {
  const parts = spec.split('-')
  switch (parts.length) {
    case 1: return rabinAvg(DEFAULT_BLOCK_SIZE)
    case 2: {
      const size = atoi(parts[1])
      if (f32times15(size) > CHUNK_SIZE_LIMIT) throw new RpcError(ERR_SIZE_MAX)
      return rabinAvg(asUint64(size))
    }
    case 4: {
      const min = labelled(parts[1], 'min', 'first label must be min')
      if (min < 16) throw new RpcError(ERR_RABIN_MIN)
      const avg = labelled(parts[2], 'avg', 'second label must be avg')
      const max = labelled(parts[3], 'max', 'final label must be max')
      if (min >= avg) throw new RpcError('incorrect format: rabin-min must be smaller than rabin-avg')
      if (avg >= max) throw new RpcError('incorrect format: rabin-avg must be smaller than rabin-max')
      if (max > CHUNK_SIZE_LIMIT) throw new RpcError(ERR_SIZE_MAX)
      return rabin(min, avg, max)
    }
    default:
      throw new RpcError("incorrect format (expected 'rabin' 'rabin-[avg]' or 'rabin-[min]-[avg]-[max]'")
  }
}

/** `[label:]value` */
function labelled (part: string, label: string, err: string): number {
  const sub = part.split(':')
  if (sub.length > 1 && sub[0] !== label) throw new RpcError(err)
  return atoi(sub[sub.length - 1])
}

/** boxo NewRabin: min = avg/3, max = avg + avg/2 (integer division) */
function rabinAvg (avg: number): Chunker {
  const min = Math.floor(avg / 3)
  const max = avg + Math.floor(avg / 2)
  return rabin(min, avg, max)
}
