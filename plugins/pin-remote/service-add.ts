// ipfs pin remote service add <service> <endpoint> <key> (kubo remotepin.go addRemotePinServiceCmd):
// store the credentials under Pinning.RemoteServices. No output.
import { RpcError } from '../../core/errors.js'
import type { Json } from '../../core/config/index.js'
import { defineCommand } from '../../registry/define.js'
import { normalizeEndpoint, remoteServices } from './common.js'

export const pinRemoteServiceAdd = defineCommand({
  path: ['pin', 'remote', 'service', 'add'],
  description: 'Add remote pinning service.',
  help: `Add credentials for access to a remote pinning service and store them in the
config under Pinning.RemoteServices map.

TIP:

  To add services and test them by fetching pin count stats:

  $ ipfs pin remote service add goodsrv https://pin-api.example.com secret-key
  $ ipfs pin remote service add badsrv  https://bad-api.example.com invalid-key
  $ ipfs pin remote service ls --stat
  goodsrv   https://pin-api.example.com 0/0/0/0
  badsrv    https://bad-api.example.com invalid`,
  args: [
    { name: 'service', kind: 'string', required: true, description: 'Service name.' },
    { name: 'endpoint', kind: 'string', required: true, description: 'Service endpoint.' },
    { name: 'key', kind: 'string', required: true, description: 'Service key.' }
  ],
  output: 'ndjson',
  async run ({ args, deps: { config } }): Promise<undefined> {
    const [name, rawEndpoint, key] = args
    const endpoint = normalizeEndpoint(rawEndpoint)
    // read and write in one turn: concurrent adds and removals never lose each other
    const services = Object.fromEntries(remoteServices(config))
    if (Object.hasOwn(services, name)) throw new RpcError('service already present')
    Object.defineProperty(services, name, {
      value: { API: { Endpoint: endpoint, Key: key }, Policies: { MFS: { Enable: false, PinName: '', RepinInterval: '' } } },
      enumerable: true, writable: true, configurable: true
    })
    await config.setKey('Pinning.RemoteServices', services as unknown as Json)
  }
})
