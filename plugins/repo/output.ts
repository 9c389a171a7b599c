// Wire types of the repo family (kubo core/commands/repo.go, core/corerepo/stat.go), fields in Go order.

/** a CID as go-cid marshals it: {"/": "<cid>"} (null when undefined) */
export interface CidLink { '/': string }

/** repo gc: a removed block, or an error (Key null) */
export interface GcResult {
  Key: CidLink | null
  Error?: string
}

/** repo stat / stats repo (corerepo.Stat embedding SizeStat). StorageMax is math.MaxUint64 without a limit. */
export interface RepoStat {
  RepoSize: number
  /** a number, or a raw JSON number beyond JS precision (no limit: 18446744073709551615) */
  StorageMax: number | RawJson
  NumObjects: number
  RepoPath: string
  Version: string
}

/** JSON.rawJSON's result: serialised as the number text it holds */
export interface RawJson { rawJSON: string }

/** repo verify: a message about a corrupt block or the summary, or a progress counter */
export interface VerifyProgress {
  Msg: string
  Progress: number
}

export interface RepoVersion {
  Version: string
}

/** repo migrate (CLI only): lines Kubo prints to stdout */
export interface MigrateMessage {
  Message: string
}
