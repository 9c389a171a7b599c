// ipfs bitswap wantlist: what we want, or (--peer) what a peer wants from us.
import { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import { NotOnlineError } from '../../core/errors.js'
import { decodePeer } from '../routing/events.js'
import { encodeCid } from './stat.js'

export interface KeyListOutput { Keys: Array<{ '/': string }> }

export const bitswapWantlist = defineCommand({
  path: ['bitswap', 'wantlist'],
  description: 'Show blocks currently on the wantlist.',
  help: 'Print out all blocks currently on the bitswap wantlist for the local peer.',
  options: {
    peer: { type: 'string', aliases: ['p'], description: 'Specify which peer to show wantlist for. Default: self.' }
  },
  output: 'single',
  async run ({ options, deps }): Promise<KeyListOutput> {
    if (deps.libp2p == null || deps.bitswap == null) throw new NotOnlineError()
    let keys = deps.bitswap.wantlist()
    if (options.peer != null) {
      const peer = decodePeer(options.peer)
      if (!peer.equals(deps.libp2p.peerId)) keys = deps.bitswap.peerWantlist(peer) ?? []
    }
    return { Keys: keys.map(cid => ({ '/': cid.toString() })) }
  },
  // cidutil.Sort: by the CIDs' bytes
  text: (out, { options }) => out.Keys.map(k => k['/']).sort((a, b) => sortKey(a).compare(sortKey(b))).map(k => encodeCid(k, options) + '\n').join('')
})

function sortKey (s: string): Buffer {
  try { return Buffer.from(CID.parse(s).bytes) } catch { return Buffer.from(s) }
}
