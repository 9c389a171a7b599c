// Wire types of ipfs ls (kubo core/commands/ls.go), fields in Go order.

/** unixfs_pb.Data_DataType numbers used in LsLink.Type */
export const LS_TYPE = { Raw: 0, Directory: 1, File: 2, Metadata: 3, Symlink: 4, HAMTShard: 5 } as const

export interface LsLink {
  Name: string
  Hash: string
  /** UnixFS file size (0 for directories and when not resolved); the Tsize for raw leaves */
  Size: number
  /** 1 directory (also HAMT/metadata), 2 file, 4 symlink, 0 unknown (not resolved) */
  Type: number
  Target: string
  /** Go os.FileMode: permission bits plus type bits (0 when no mode is stored) */
  Mode: number
  /** RFC 3339 time ("0001-01-01T00:00:00Z" when no mtime is stored) */
  ModTime: string
}

export interface LsObject {
  /** the path as given */
  Hash: string
  Links: LsLink[]
}

export interface LsOutput {
  Objects: LsObject[]
}
