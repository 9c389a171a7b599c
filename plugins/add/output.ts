// Wire types of `ipfs add` (kubo core/commands/add.go).

/**
 * One event of an add, in Go field order. A row with Hash is an added file or directory; a row
 * without Hash is a progress report (`Name`, `Bytes` read so far). Empty fields are omitted
 * (`json:",omitempty"`), except Name.
 */
export interface AddOutput {
  Name: string
  Hash?: string
  Bytes?: number
  /** cumulative DAG size, as a decimal string */
  Size?: string
  /** the part's Go os.FileMode in octal with a leading 0 (`0644`) */
  Mode?: string
  Mtime?: number
  MtimeNsecs?: number
}
