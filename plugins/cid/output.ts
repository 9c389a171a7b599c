// Wire types of the cid commands (Kubo core/commands/cid.go), fields in Go order.

/** One row of `cid format` / `cid base32` (Kubo CidFormatRes). */
export interface CidFormatOutput {
  /** the CID string as given */
  CidStr: string
  Formatted: string
  /** set instead of Formatted when this entry failed */
  ErrorMsg: string
}

/** Kubo CodeAndName: one row of `cid bases|codecs|hashes`. */
export interface CodeAndNameOutput {
  Code: number
  Name: string
}

/** Kubo CidInspectRes (lower-case JSON keys; cidV0 and errorMsg omitted when empty). */
export interface CidInspectOutput {
  cid: string
  version: number
  multibase: { prefix: string, name: string }
  multicodec: { code: number, name: string }
  multihash: { code: number, name: string, length: number, digest: string }
  cidV0?: string
  cidV1: string
  errorMsg?: string
}
