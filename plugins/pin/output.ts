// Wire types of the pin family (kubo core/commands/pin/pin.go), fields in Go order.

/** pin rm, pin update */
export interface PinOutput {
  Pins: string[]
}

/** pin add: the pinned CIDs, or (with --progress) a progress row; every field omitempty */
export interface AddPinOutput {
  Pins?: string[]
  Progress?: number
  Bytes?: number
}

/** pin ls entry of the non-streamed map */
export interface PinLsType {
  Type: string
  Name: string
}

/** pin ls without --stream: {"Keys":{cid:{Type,Name}}} (Keys omitted when empty) */
export interface PinLsList {
  Keys?: Record<string, PinLsType>
}

/** pin ls --stream: one object per pin, empty fields omitted */
export interface PinLsObject {
  Cid?: string
  Name?: string
  Type?: string
}

export interface BadNode {
  Cid: string
  Err: string
}

/** pin verify: one row per recursive pin checked (every field omitempty) */
export interface PinVerifyRes {
  Cid?: string
  Err?: string
  Ok?: boolean
  BadNodes?: BadNode[]
}
