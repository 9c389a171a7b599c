// Wire types of the refs family (kubo core/commands/refs.go).

/** RefWrapper: one ref, or the error that stopped the walk of one root. */
export interface RefWrapper {
  Ref: string
  Err: string
}
