// Block file sizes by name, for `repo stat`: a block's file holds exactly its bytes and its name is their hash, so a
// name's size never changes and a walk that lists the names (readdir) needs no lstat for a name seen before. Names
// are kept as 64-bit fingerprints (two FNV-1a hashes) in an open-addressing table: 12 bytes a slot, at most
// MAX_ENTRIES names (beyond that a name is stat'ed again). Existence always comes from the listing, never from here.

/** names remembered at most: the table grows (doubles) once 3/4 full, so 3M names keep it at 4M slots of 12 bytes, 48 MiB (4M names took 8M slots, 96 MiB) */
const MAX_ENTRIES = 3_000_000

export class BlockSizes {
  /** per slot: fingerprint high, fingerprint low, size + 1 (0: empty) */
  private slots = new Uint32Array(3 * 1024)
  private count = 0

  get size (): number { return this.count }

  /** bytes of the table */
  get bytes (): number { return this.slots.byteLength }

  /** the size remembered for `name` (its first `end` characters), or undefined */
  get (name: string, end = name.length): number | undefined {
    const hi = fnv(name, end, 0x811c9dc5)
    const lo = fnv2(name, end)
    const slots = this.slots
    const mask = slots.length / 3 - 1
    for (let i = (hi ^ lo) & mask; ; i = (i + 1) & mask) {
      const s = slots[3 * i + 2]
      if (s === 0) return undefined
      if (slots[3 * i] === hi && slots[3 * i + 1] === lo) return s - 1
    }
  }

  /** remember `name`'s size (its first `end` characters) */
  set (name: string, size: number, end = name.length): void {
    if (size >= 0xffffffff) return
    if (this.count >= MAX_ENTRIES) return
    if (4 * (this.count + 1) > 3 * (this.slots.length / 3)) this.grow()
    const hi = fnv(name, end, 0x811c9dc5)
    const lo = fnv2(name, end)
    if (this.insert(this.slots, hi, lo, size + 1)) this.count++
  }

  private insert (slots: Uint32Array, hi: number, lo: number, stored: number): boolean {
    const mask = slots.length / 3 - 1
    for (let i = (hi ^ lo) & mask; ; i = (i + 1) & mask) {
      if (slots[3 * i + 2] === 0) {
        slots[3 * i] = hi
        slots[3 * i + 1] = lo
        slots[3 * i + 2] = stored
        return true
      }
      if (slots[3 * i] === hi && slots[3 * i + 1] === lo) { slots[3 * i + 2] = stored; return false }
    }
  }

  private grow (): void {
    const old = this.slots
    this.slots = new Uint32Array(old.length * 2)
    for (let i = 0; i < old.length; i += 3) if (old[i + 2] !== 0) this.insert(this.slots, old[i], old[i + 1], old[i + 2])
  }
}

/** FNV-1a (32 bits) of the first `end` UTF-16 units of `s`, from `basis` */
function fnv (s: string, end: number, basis: number): number {
  let h = basis
  for (let i = 0; i < end; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/** a second, independent 32-bit hash (FNV-1a's scheme with MurmurHash2's multiplier and a final mix) */
function fnv2 (s: string, end: number): number {
  let h = 0x2f6e4a1b
  for (let i = 0; i < end; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x5bd1e995)
  h ^= h >>> 15
  return Math.imul(h, 0x85ebca6b) >>> 0
}
