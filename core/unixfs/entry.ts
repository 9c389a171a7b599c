// One input entry of an upload: what the RPC multipart reader and the CLI produce and the importer consumes.

/** A file, directory or symlink coming from a multipart body (or from the CLI's files). */
export interface FileEntry {
  /** cleaned relative path, '/'-separated, no leading slash ('' for an unnamed part) */
  path: string
  type: 'file' | 'directory' | 'symlink'
  /** file bytes (files) */
  content?: AsyncIterable<Uint8Array>
  /** symlink target */
  target?: string
  mode?: number
  mtime?: { secs: number, nsecs?: number }
  /** absolute source path (abspath-encoded / abspath headers), for filestore */
  abspath?: string
}
