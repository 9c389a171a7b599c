// ipfs bitswap ledger: bytes exchanged with a peer (Kubo's server.Receipt).
import { defineCommand } from '../../registry/define.js'
import { NotOnlineError } from '../../core/errors.js'
import type { LedgerOutput } from '../../core/bitswap/index.js'
import { decodePeer } from '../routing/events.js'

export const bitswapLedger = defineCommand({
  path: ['bitswap', 'ledger'],
  description: 'Show the current ledger for a peer.',
  help: 'The Bitswap decision engine tracks the number of bytes exchanged between IPFS\nnodes, and stores this information as a collection of ledgers. This command\nprints the ledger associated with a given peer.',
  args: [{ name: 'peer', kind: 'string', required: true, description: 'The PeerID (B58) of the ledger to inspect.' }],
  output: 'single',
  async run ({ args, deps }): Promise<LedgerOutput> {
    if (deps.libp2p == null || deps.bitswap == null) throw new NotOnlineError()
    return deps.bitswap.ledger(decodePeer(args[0]))
  },
  // Go's %f: six decimals
  text: (l) => `Ledger for ${l.Peer}\nDebt ratio:\t${l.Value.toFixed(6)}\nExchanges:\t${l.Exchanged}\nBytes sent:\t${l.Sent}\nBytes received:\t${l.Recv}\n\n`
})
