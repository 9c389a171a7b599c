// ipfs bootstrap rm [<peer>...] [--all] (kubo core/commands/bootstrap.go bootstrapRemoveCmd).
import { AUTO_PLACEHOLDER } from '../../core/config/autoconf.js'
import type { ConfigStore, KuboConfig } from '../../core/config/index.js'
import { repoConfig, setRepoConfig } from '../../core/config/schema.js'
import { RpcError } from '../../core/errors.js'
import { defineCommand } from '../../registry/define.js'
import { SECURITY_WARNING } from './bootstrap.js'
import { writePeers } from './list.js'
import type { BootstrapOutput } from './output.js'
import { bootstrapPeerStrings, parseBootstrapPeers, type AddrInfo } from './peers.js'

const bootstrapOf = (cfg: KuboConfig): string[] | null => Array.isArray(cfg.Bootstrap) ? cfg.Bootstrap.map(String) : null
const autoConfEnabled = (cfg: KuboConfig): boolean => (cfg.AutoConf as { Enabled?: unknown } | null)?.Enabled !== false

function parse (list: string[]): AddrInfo[] {
  try { return parseBootstrapPeers(list) } catch (err) { throw new RpcError((err as Error).message) }
}

/** bootstrapRemoveAll: every entry goes; "auto" lists come back as they were. */
export async function removeAll (config: ConfigStore): Promise<BootstrapOutput> {
  const cfg = repoConfig(config)
  const list = bootstrapOf(cfg)
  const removed = list?.includes(AUTO_PLACEHOLDER) === true ? [...list] : bootstrapPeerStrings(parse(list ?? []))
  cfg.Bootstrap = null
  await setRepoConfig(config, cfg)
  return { Peers: removed }
}

/** bootstrapRemove: whole peers (/p2p/<id>) or some of their addresses. */
async function remove (config: ConfigStore, toRemove: string[]): Promise<BootstrapOutput> {
  const cfg = repoConfig(config)
  const list = bootstrapOf(cfg) ?? []
  if (list.includes(AUTO_PLACEHOLDER) && autoConfEnabled(cfg)) {
    throw new RpcError("cannot remove individual bootstrap peers when using 'auto' placeholder: the 'auto' value is managed by AutoConf. Either disable AutoConf by setting AutoConf.Enabled=false and replace 'auto' with specific peer addresses, or use 'ipfs bootstrap rm --all' to remove all peers")
  }
  const wanted = new Map(parse(toRemove).map(i => [i.id, i.addrs.map(a => a.toString())]))
  const removed: AddrInfo[] = []
  const keep: AddrInfo[] = []
  for (const p of parse(list)) {
    const addrs = wanted.get(p.id)
    if (addrs == null) { keep.push(p); continue }
    if (addrs.length === 0) { removed.push(p); continue }
    const gone = p.addrs.filter(a => addrs.includes(a.toString()))
    const kept = p.addrs.filter(a => !addrs.includes(a.toString()))
    if (gone.length > 0) removed.push({ id: p.id, addrs: gone })
    if (kept.length > 0) keep.push({ id: p.id, addrs: kept })
  }
  cfg.Bootstrap = bootstrapPeerStrings(keep)
  await setRepoConfig(config, cfg)
  return { Peers: bootstrapPeerStrings(removed) }
}

export const bootstrapRm = defineCommand({
  path: ['bootstrap', 'rm'],
  description: 'Remove peers from the bootstrap list.',
  help: 'Outputs the list of peers that were removed.\n' + SECURITY_WARNING,
  args: [{ name: 'peer', kind: 'string', variadic: true, stdin: true, description: "A peer to add to the bootstrap list (in the format '<multiaddr>/<peerID>')" }],
  bodyArgs: true,
  options: {
    all: { type: 'bool', description: "Remove all bootstrap peers. (Deprecated, use 'all' subcommand)" }
  },
  output: 'single',
  run: async ({ args, options, deps: { config } }): Promise<BootstrapOutput> =>
    options.all === true ? await removeAll(config) : await remove(config, args),
  text: (out) => writePeers('removed ', out.Peers)
})
