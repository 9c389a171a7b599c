// Wire shapes of the name commands (Kubo core/commands/name).
export interface IpnsEntryOutput { Name: string, Value: string }
export interface ResolvedPathOutput { Path: string }
export interface StringListOutput { Strings: string[] | null }
export interface IpnsInspectOutput {
  Entry: { Value: string, ValidityType: number | null, Validity: string | null, Sequence: number | null, TTL: number | null }
  PbSize: number
  SignatureType: string
  HexDump: string
  Validation: { Valid: boolean, Reason: string, Name: string } | null
}
