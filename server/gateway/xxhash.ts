// XXH64 with seed 0 (github.com/cespare/xxhash Sum64), for the Etag boxo's routing server puts on IPNS
// records: xxhash-wasm, instantiated once when the gateway module loads.
import xxhash from 'xxhash-wasm'

const { h64Raw } = await xxhash()

export const xxhash64 = (b: Uint8Array): bigint => h64Raw(b, 0n)
