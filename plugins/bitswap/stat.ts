// ipfs bitswap stat (and stats bitswap): Kubo's bitswap.Stat from the counters kept around @helia/bitswap.
import { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import { createCidEncoder } from '../../core/cid-encoder.js'
import { InvalidArgumentError, NotOnlineError } from '../../core/errors.js'
import type { BitswapCounters } from '../../core/bitswap/index.js'
import { humanizeBytes } from '../dag/stat.js'

export interface BitswapStatOutput extends BitswapCounters {
  Wantlist: Array<{ '/': string }>
  Peers: string[]
}

/** a CID string re-encoded per --cid-base / --upgrade-cidv0-in-output (text encoders) */
export function encodeCid (c: string, options: { cidBase?: string, upgradeCidv0InOutput?: boolean }): string {
  try {
    return createCidEncoder({ cidBase: options.cidBase, upgradeCidv0InOutput: options.upgradeCidv0InOutput }).encode(CID.parse(c))
  } catch {
    return c
  }
}

export const bitswapStat = defineCommand({
  path: ['bitswap', 'stat'],
  description: 'Show some diagnostic information on the bitswap agent.',
  options: {
    verbose: { type: 'bool', aliases: ['v'], description: 'Print extra information' },
    human: { type: 'bool', description: 'Print sizes in human readable format (e.g., 1K 234M 2G)' }
  },
  output: 'single',
  async run ({ deps }): Promise<BitswapStatOutput> {
    const bitswap = deps.bitswap
    if (deps.libp2p == null || bitswap == null) throw new InvalidArgumentError(`unable to run offline: ${new NotOnlineError().message}`)
    const c = bitswap.counters()
    return {
      Wantlist: bitswap.wantlist().map(cid => ({ '/': cid.toString() })),
      Peers: bitswap.partners().map(p => p.toString()),
      BlocksReceived: c.BlocksReceived,
      DataReceived: c.DataReceived,
      DupBlksReceived: c.DupBlksReceived,
      DupDataReceived: c.DupDataReceived,
      MessagesReceived: c.MessagesReceived,
      BlocksSent: c.BlocksSent,
      DataSent: c.DataSent
    }
  },
  text: (s, { options }) => {
    const bytes = (n: number): string => options.human === true ? humanizeBytes(n) : String(n)
    const enc = (c: string): string => encodeCid(c, options)
    let out = 'bitswap status\n'
    out += `\tblocks received: ${s.BlocksReceived}\n\tblocks sent: ${s.BlocksSent}\n`
    out += `\tdata received: ${bytes(s.DataReceived)}\n\tdata sent: ${bytes(s.DataSent)}\n`
    out += `\tdup blocks received: ${s.DupBlksReceived}\n\tdup data received: ${bytes(s.DupDataReceived)}\n`
    out += `\twantlist [${s.Wantlist.length} keys]\n` + s.Wantlist.map(k => `\t\t${enc(k['/'])}\n`).join('')
    out += `\tpartners [${s.Peers.length}]\n`
    if (options.verbose === true) out += s.Peers.map(p => `\t\t${p}\n`).join('')
    return out
  }
})
