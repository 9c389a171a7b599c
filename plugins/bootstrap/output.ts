// Wire types of the bootstrap family (kubo core/commands/bootstrap.go).

/** Peers: the list, or what was added/removed (null when Go's slice is nil). */
export interface BootstrapOutput {
  Peers: string[] | null
}
