// Small buffers carved from 128 KiB slabs, as Buffer.allocUnsafe carves them from its 8 KiB pool. A slab is
// above the daemon's MALLOC_MMAP_THRESHOLD_ (bin/tsipfs.js): glibc maps it on its own and unmaps it once its
// last view is collected. The 8 KiB pools live in glibc's main arena: the thousands a 10,000-file add has in
// flight (a block and its log record per file) grew it by ~25 MiB of holes that glibc never gave back.
// For buffers that live about as long as their neighbours (in flight together); a long-lived one keeps its slab.
const SLAB = 128 * 1024
/** larger requests get a buffer of their own */
export const SLAB_MAX = 16 * 1024

let slab: Buffer | undefined
let used = SLAB

/** `size` uninitialised bytes (as Buffer.allocUnsafe) */
export function slabAlloc (size: number): Buffer {
  if (size > SLAB_MAX) return Buffer.allocUnsafe(size)
  if (slab === undefined || used + size > SLAB) {
    slab = Buffer.allocUnsafeSlow(SLAB)
    used = 0
  }
  const out = slab.subarray(used, used + size)
  used += (size + 7) & ~7
  return out
}
