// ipfs pin remote service rm <service> (kubo remotepin.go rmRemotePinServiceCmd): forget a service's
// credentials (an unknown name is not an error). No output.
import type { Json } from '../../core/config/index.js'
import { defineCommand } from '../../registry/define.js'
import { remoteServices } from './common.js'

export const pinRemoteServiceRm = defineCommand({
  path: ['pin', 'remote', 'service', 'rm'],
  description: 'Remove remote pinning service.',
  help: 'Remove credentials for access to a remote pinning service.',
  args: [{ name: 'service', kind: 'string', required: true, description: 'Name of remote pinning service to remove.' }],
  output: 'ndjson',
  async run ({ args, deps: { config } }): Promise<undefined> {
    const services = Object.fromEntries(remoteServices(config))
    if (!Object.hasOwn(services, args[0])) return undefined
    // Reflect.deleteProperty: the name is user input (no dynamic delete of a computed key)
    Reflect.deleteProperty(services, args[0])
    await config.setKey('Pinning.RemoteServices', services as unknown as Json)
  }
})
