// Wire type of `id` (kubo core/commands/id.go IdOutput), Go field order.

export interface IdOutput {
  ID: string
  PublicKey: string
  /** null when there is no libp2p host (or nothing is known) */
  Addresses: string[] | null
  AgentVersion: string
  Protocols: string[] | null
}
