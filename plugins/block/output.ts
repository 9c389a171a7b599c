// Wire types of the block commands (Kubo core/commands/block.go), fields in Go order.

/** Kubo BlockStat: block put (one per file) and block stat. */
export interface BlockStatOutput {
  Key: string
  Size: number
}

/** Kubo removedBlock (both fields omitempty): one row of block rm. */
export interface BlockRmOutput {
  Hash?: string
  Error?: string
}
