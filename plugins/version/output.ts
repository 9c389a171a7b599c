// Wire types of the version family (kubo version.go, core/commands/version.go), Go field order.

/** kubo VersionInfo */
export interface VersionOutput {
  Version: string
  Commit: string
  Repo: string
  System: string
  Golang: string
}

/** kubo Dependency: one per module, main module first */
export interface DependencyOutput {
  Path: string
  Version: string
  ReplacedBy: string
  Sum: string
}

/** kubo VersionCheckOutput */
export interface VersionCheckOutput {
  UpdateAvailable: boolean
  RunningVersion: string
  GreatestVersion: string
  PeersSampled: number
  WithGreaterVersion: number
}
