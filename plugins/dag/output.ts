// Wire types of the dag commands (kubo core/commands/dag/dag.go), fields in Go struct order.
// A go-cid cid.Cid marshals as {"/": "<cid>"} in its default string form (--cid-base only affects text).

export interface CidLink { '/': string }

/** dag put */
export interface DagPutOutput { Cid: CidLink }

/** dag resolve */
export interface DagResolveOutput { Cid: CidLink, RemPath: string }

/** dag import: one Root row per header root (when pinning), then Stats (with --stats) */
export interface CarImportOutput {
  Root?: { Cid: CidLink, PinErrorMsg: string }
  Stats?: { BlockCount: number, BlockBytesCount: number }
}

/** dag stat: per-root stats; Size/NumBlocks omitted when 0 */
export interface DagStat { Cid: string, Size?: number, NumBlocks?: number }

/** dag stat summary (progress rows have no UniqueBlocks/Ratio yet); zero fields are omitted */
export interface DagStatSummary {
  UniqueBlocks?: number
  TotalSize?: number
  SharedSize?: number
  Ratio?: number
  DagStats?: DagStat[]
}
