// Kubo's bitswap counters and per-peer ledgers (boxo bitswap.Stat, server.Receipt), which @helia/bitswap
// does not keep: counted around its network layer. Every message received, every block received (a
// block we did not want, or already had, is a duplicate: counted by client.ts) and every block sent after the send succeeded.
import type { PeerId } from '@libp2p/interface'
import type { CID } from 'multiformats/cid'

export interface LedgerOutput {
  Peer: string
  /** debt ratio: bytes sent / (bytes received + 1) */
  Value: number
  Sent: number
  Recv: number
  Exchanged: number
}

export interface BitswapCounters {
  BlocksReceived: number
  DataReceived: number
  DupBlksReceived: number
  DupDataReceived: number
  MessagesReceived: number
  BlocksSent: number
  DataSent: number
}

interface Ledger { sent: number, recv: number, exchanged: number }

export class BitswapStats {
  readonly counters: BitswapCounters = { BlocksReceived: 0, DataReceived: 0, DupBlksReceived: 0, DupDataReceived: 0, MessagesReceived: 0, BlocksSent: 0, DataSent: 0 }
  private readonly ledgers = new Map<string, Ledger>()
  /** when a block was last received or sent (ms since the epoch, 0 before one): the provider yields to transfers */
  lastBlockAt = 0

  private ledgerOf (peer: PeerId): Ledger {
    const key = peer.toString()
    let l = this.ledgers.get(key)
    if (l == null) this.ledgers.set(key, l = { sent: 0, recv: 0, exchanged: 0 })
    return l
  }

  messageReceived (): void {
    this.counters.MessagesReceived++
  }

  blockReceived (peer: PeerId, size: number, duplicate: boolean): void {
    const c = this.counters
    this.lastBlockAt = Date.now()
    c.BlocksReceived++
    c.DataReceived += size
    if (duplicate) {
      c.DupBlksReceived++
      c.DupDataReceived += size
    }
    const l = this.ledgerOf(peer)
    l.recv += size
    l.exchanged++
  }

  blockSent (peer: PeerId, size: number): void {
    this.lastBlockAt = Date.now()
    this.counters.BlocksSent++
    this.counters.DataSent += size
    const l = this.ledgerOf(peer)
    l.sent += size
    l.exchanged++
  }

  /** Kubo's LedgerForPeer: zeros for a peer we never exchanged with */
  ledger (peer: PeerId): LedgerOutput {
    const l = this.ledgers.get(peer.toString()) ?? { sent: 0, recv: 0, exchanged: 0 }
    return { Peer: peer.toString(), Value: l.sent / (l.recv + 1), Sent: l.sent, Recv: l.recv, Exchanged: l.exchanged }
  }
}

/** The parts of @helia/bitswap's Bitswap instance that are instrumented (not in its typed API). */
export interface BitswapInternals {
  network: {
    addEventListener: (type: 'bitswap:message', fn: (evt: CustomEvent<{ peer: PeerId }>) => void) => void
    sendMessage: (peer: PeerId, message: { blocks: Map<string, { data: Uint8Array }> }, options?: unknown) => Promise<void>
  }
  /** @helia/bitswap's own client side, silenced (client.ts replaces it) */
  wantList: {
    receiveMessage: (...args: unknown[]) => Promise<void>
    peerConnected: (...args: unknown[]) => Promise<void>
  }
  peerWantLists: {
    peers: () => PeerId[]
    wantListForPeer: (peer: PeerId) => Array<{ cid: CID }> | undefined
    receiveMessage: (peer: PeerId, message: unknown) => void
    ledgerMap: {
      get: (peer: PeerId) => {
        removeExpiredWants: () => void
        wants: Map<string, { cid: CID, status: string, haveBlock?: boolean }>
        sendBlocksToPeer: (options?: { signal?: AbortSignal }) => Promise<void>
      } | undefined
    }
  }
}

/** Count what flows through a started @helia/bitswap instance. */
export function instrument (bitswap: BitswapInternals, stats: BitswapStats): void {
  const { network } = bitswap
  network.addEventListener('bitswap:message', () => { stats.messageReceived() })
  // blocks received are counted by the client (client.ts), which knows what it wanted
  const send = network.sendMessage.bind(network)
  network.sendMessage = async (peer, message, options) => {
    await send(peer, message, options)
    for (const block of message.blocks.values()) stats.blockSent(peer, block.data.byteLength)
  }
}
