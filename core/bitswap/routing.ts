// @helia/interface's Routing over libp2p's own content and peer routing (the kad-dht service plugs
// into both). Peer IDs travel as CIDs on the Helia side.
import { peerIdFromCID } from '@libp2p/peer-id'
import type { Libp2p, PeerInfo } from '@libp2p/interface'
import type { BitswapComponents } from '@helia/bitswap'

export type Routing = BitswapComponents['routing']
type Peer = Awaited<ReturnType<Routing['findPeer']>>

const ROUTER = 'libp2p-router'

const toPeer = (info: PeerInfo): Peer => ({ id: info.id.toCID(), multiaddrs: info.multiaddrs, router: ROUTER })

export function libp2pRouting (libp2p: Libp2p): Routing {
  const { contentRouting, peerRouting } = libp2p
  return {
    provide: async (cid, options) => { await contentRouting.provide(cid, options) },
    cancelReprovide: async (key, options) => { await contentRouting.cancelReprovide(key, options) },
    async * findProviders (cid, options) {
      for await (const info of contentRouting.findProviders(cid, options)) {
        yield { ...toPeer(info), fallback: false }
      }
    },
    put: async (key, value, options) => { await contentRouting.put(key, value, options) },
    get: async (key, options) => {
      const value = await contentRouting.get(key, options)
      // Routing.get promises an ArrayBuffer-backed array
      return value.buffer instanceof ArrayBuffer ? value as Uint8Array<ArrayBuffer> : new Uint8Array(value)
    },
    findPeer: async (peer, options) => toPeer(await peerRouting.findPeer(peerIdFromCID(peer), options)),
    async * getClosestPeers (key, options) {
      for await (const info of peerRouting.getClosestPeers(key, options)) yield toPeer(info)
    }
  }
}
