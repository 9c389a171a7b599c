// Wire types of the files family (kubo core/commands/files.go), in Go field order.

/** mfs.NodeListing (no JSON tags: every field always present) */
export interface FilesLsEntry {
  Name: string
  /** 0 file, 1 directory */
  Type: number
  Size: number
  Hash: string
}

/** filesLsOutput: Entries is null for an empty directory (a nil Go slice) */
export interface FilesLsOutput {
  Entries: FilesLsEntry[] | null
}

/**
 * statOutput as its MarshalJSON writes it: the embedded fields first (empty ones omitted where
 * tagged omitempty), then Mode as a 4-digit octal string when non-zero.
 */
export interface FilesStatOutput {
  Hash: string
  Size: number
  CumulativeSize: number
  Blocks: number
  Type: string
  WithLocality?: boolean
  Local?: boolean
  SizeLocal?: number
  Mtime?: number
  MtimeNsecs?: number
  Mode?: string
}

/** flushRes */
export interface FilesFlushOutput {
  Cid: string
}

/** commands.MessageOutput */
export interface MessageOutput {
  Message: string
}
