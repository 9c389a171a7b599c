// ipfs bootstrap add [<peer>...] (kubo core/commands/bootstrap.go bootstrapAddCmd).
import { AUTO_PLACEHOLDER } from '../../core/config/autoconf.js'
import { repoConfig, setRepoConfig } from '../../core/config/schema.js'
import { RpcError } from '../../core/errors.js'
import { defineCommand } from '../../registry/define.js'
import { SECURITY_WARNING } from './bootstrap.js'
import { writePeers } from './list.js'
import type { BootstrapOutput } from './output.js'
import { parseMultiaddr } from './peers.js'

export const PEER_ARG_DESCRIPTION = "A peer to add to the bootstrap list (in the format '<multiaddr>/<peerID>')"

/** Each address must parse and end in /p2p/<id> after a transport ("auto" passes). */
function validate (peer: string): void {
  if (peer === AUTO_PLACEHOLDER) return
  let m
  try { m = parseMultiaddr(peer) } catch (err) { throw new RpcError((err as Error).message) }
  const last = m.components[m.components.length - 1]
  if (last?.name !== 'p2p') throw new RpcError(`invalid bootstrap address: ${peer}`)
  if (m.components.length < 2) throw new RpcError(`bootstrap address without a transport: ${peer}`)
}

export const bootstrapAdd = defineCommand({
  path: ['bootstrap', 'add'],
  description: 'Add peers to the bootstrap list.',
  help: "Outputs a list of peers that were added (that weren't already\nin the bootstrap list).\n\nThe special values 'default' and 'auto' can be used to add the default\nbootstrap peers. Both are equivalent and will add the 'auto' placeholder to\nthe bootstrap list, which gets resolved using the AutoConf system.\n" + SECURITY_WARNING,
  args: [{ name: 'peer', kind: 'string', variadic: true, stdin: true, description: PEER_ARG_DESCRIPTION }],
  bodyArgs: true,
  output: 'single',
  async run ({ args, deps: { config } }): Promise<BootstrapOutput> {
    if (args.length === 0) throw new RpcError('no bootstrap peers to add')
    // "default" is the old name of "auto"
    const peers = args.map(p => p === 'default' ? AUTO_PLACEHOLDER : p)
    const cfg = repoConfig(config)
    const autoConf = (cfg.AutoConf as { Enabled?: unknown } | null)?.Enabled !== false
    if (!autoConf && peers.includes(AUTO_PLACEHOLDER)) {
      throw new RpcError('cannot add default bootstrap peers: AutoConf is disabled (AutoConf.Enabled=false). Enable AutoConf by setting AutoConf.Enabled=true in your config, or add specific peer addresses instead')
    }
    for (const p of peers) validate(p)

    // the new peers first (in order, once each), then the old ones not re-added
    const added = [...new Set(peers)]
    const old = Array.isArray(cfg.Bootstrap) ? cfg.Bootstrap.map(String) : []
    cfg.Bootstrap = [...new Set([...added, ...old])]
    await setRepoConfig(config, cfg)
    return { Peers: added }
  },
  text: (out) => writePeers('added ', out.Peers)
})
