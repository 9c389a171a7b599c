// Wire types of the config family (kubo core/commands/config.go).
import type { Json } from '../../core/config/index.js'

/** `ipfs config <key> [<value>]` */
export interface ConfigField {
  Key: string
  Value: Json
}

/** `ipfs config profile apply`: the config before and after, private key removed, keys sorted. */
export interface ConfigUpdateOutput {
  OldCfg: { [key: string]: Json }
  NewCfg: { [key: string]: Json }
}

/** `ipfs config show`: the whole config map (keys sorted). */
export type ConfigShowOutput = { [key: string]: Json }
