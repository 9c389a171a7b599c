// ipfs swarm disconnect (kubo core/commands/swarm.go swarmDisconnectCmd): one line per address given.
import { defineCommand } from '../../registry/define.js'
import { ERR_OFFLINE, parseAddresses, stringListText, type StringList } from './common.js'

export const swarmDisconnect = defineCommand({
  path: ['swarm', 'disconnect'],
  description: 'Close connection to a given address.',
  help: "'ipfs swarm disconnect' closes a connection to a peer address. The address\nformat is an IPFS multiaddr:\n\nipfs swarm disconnect /ip4/104.131.131.82/tcp/4001/p2p/QmaCpDMGvV2BGHeYERUEnRQAwe3N8SzbUtfsmvsqQLuvuJ\n\nThe disconnect is not permanent; if ipfs needs to talk to that address later,\nit will reconnect.",
  args: [{ name: 'address', kind: 'string', required: true, variadic: true, stdin: true, description: 'Address of peer to disconnect from.' }],
  output: 'single',
  run: async ({ args, options, deps: { libp2p } }): Promise<StringList> => {
    const output: string[] = []
    for (const info of parseAddresses(args)) {
      // peer.AddrInfoToP2pAddrs: one entry per address, or one for a bare /p2p/<id>
      const targets = info.addrs.length > 0 ? info.addrs.map(a => a.toString()) : [undefined]
      for (const addr of targets) {
        let msg = `disconnect ${info.id.toString()}`
        try {
          if (libp2p == null || options.offline === true) throw new Error(ERR_OFFLINE)
          const conns = libp2p.getConnections(info.id)
          if (addr == null) {
            // CoreAPI Disconnect with no transport: close every connection to the peer
            if (conns.length === 0) throw new Error('not connected')
            await libp2p.hangUp(info.id)
          } else {
            const matching = conns.filter(c => c.remoteAddr.toString().replace(/\/p2p\/[^/]+$/, '') === addr)
            if (matching.length === 0) throw new Error('conn not found')
            await Promise.all(matching.map(async c => { await c.close() }))
          }
          msg += ' success'
        } catch (err) {
          msg += ` failure: ${(err as Error).message}`
        }
        output.push(msg)
      }
    }
    return { Strings: output }
  },
  text: stringListText
})
