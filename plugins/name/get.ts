// ipfs name get: the raw IPNS record of a name from the routing system (Kubo core/commands/name/name.go).
import { defineCommand } from '../../registry/define.js'
import { NotOnlineError, RpcError } from '../../core/errors.js'
import { parseIpnsName } from '../../core/namesys/index.js'

export const nameGet = defineCommand({
  path: ['name', 'get'],
  description: 'Retrieve a signed IPNS record.',
  help: 'Retrieves the signed IPNS record for a given name from the routing system.\n\nThe output is the raw IPNS record (protobuf) as defined in the IPNS spec:\nhttps://specs.ipfs.tech/ipns/ipns-record/',
  status: 'experimental',
  args: [{ name: 'name', kind: 'string', required: true, description: 'The IPNS name to look up.' }],
  output: 'bytes',
  contentType: 'application/vnd.ipfs.ipns-record',
  async run ({ args, options, deps: { nameSystem }, signal }) {
    // Kubo's coreapi Routing().Get: ErrOffline on a node without a network (an online one with --offline reads locally)
    if (!nameSystem.online) throw new NotOnlineError("this action must be run in online mode, try running 'ipfs daemon' first")
    const name = args[0].replace(/^\/ipns\//, '')
    const mh = parseIpnsName(name)
    if (mh == null) throw new RpcError(`invalid IPNS name: ${name}`)
    const raw = await nameSystem.getRecord(mh, { signal, offline: options.offline === true }).catch((err: Error) => {
      throw err.name === 'ResolveError' ? new RpcError('routing: not found') : err
    })
    return { body: raw, length: raw.length }
  }
})
