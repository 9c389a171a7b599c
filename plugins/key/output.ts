// Wire types of the key commands (Kubo core/commands/keystore.go), fields in Go order.

export interface KeyOutput {
  Name: string
  Id: string
}

export interface KeyOutputList {
  Keys: KeyOutput[]
}

export interface KeyRenameOutput {
  Was: string
  Now: string
  Id: string
  Overwrite: boolean
}

export interface KeySignOutput {
  Key: KeyOutput
  Signature: string
}

export interface KeyVerifyOutput {
  Key: KeyOutput
  SignatureValid: boolean
}

/** key rotate: what Kubo prints to stdout while generating the new identity. */
export interface KeyRotateOutput {
  Message: string
}
