// ipfs bootstrap list (kubo core/commands/bootstrap.go bootstrapListCmd).
import { bootstrapWithAutoConf } from '../../core/config/autoconf.js'
import type { ConfigStore } from '../../core/config/index.js'
import { repoConfig } from '../../core/config/schema.js'
import { defineCommand } from '../../registry/define.js'
import type { BootstrapOutput } from './output.js'

/** The text form: one peer per line, sorted, each after `prefix`. */
export function writePeers (prefix: string, peers: string[] | null): string {
  return [...(peers ?? [])].sort((a, b) => a < b ? -1 : a > b ? 1 : 0).map(p => `${prefix}${p}\n`).join('')
}

/** The configured list, "auto" included; expanded from AutoConf with `expand`. */
export function listPeers (config: ConfigStore, expand: boolean): BootstrapOutput {
  const cfg = repoConfig(config)
  if (expand) return { Peers: bootstrapWithAutoConf(cfg) }
  return { Peers: Array.isArray(cfg.Bootstrap) ? cfg.Bootstrap.map(String) : null }
}

export const bootstrapList = defineCommand({
  path: ['bootstrap', 'list'],
  description: 'Show peers in the bootstrap list.',
  help: "Peers are output in the format '<multiaddr>/<peerID>'.",
  options: {
    'expand-auto': { type: 'bool', description: "Expand 'auto' placeholders from AutoConf service." }
  },
  output: 'single',
  run: ({ options, deps: { config } }): BootstrapOutput => listPeers(config, options.expandAuto === true),
  text: (out) => writePeers('', out.Peers)
})
