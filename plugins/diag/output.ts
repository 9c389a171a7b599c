// Wire types of the diag family (kubo core/commands/active.go, sysdiag.go).
export type { RequestLogEntry } from '../../core/request-log.js'

/** kubo sysdiag getInfo: a Go map, so the keys come out sorted */
export interface SysInfoOutput {
  diskinfo: { free_space: number, fstype: string, total_space: number }
  environment: { GOPATH: string, IPFS_PATH: string }
  ipfs_commit: string
  ipfs_version: string
  memory: { swap: number, virt: number }
  net: { interface_addresses: string[], online: boolean }
  runtime: { arch: string, compiler: string, gomaxprocs: number, numcpu: number, numgoroutines: number, os: string, version: string }
}
