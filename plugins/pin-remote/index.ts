// pin remote family: ipfs pin remote add/ls/rm and pin remote service add/ls/rm against Pinning Service
// API servers named in Pinning.RemoteServices, plus the daemon's MFS pin policy (remotePinMfs).
import type { Plugin } from '../../registry/types.js'
import { pinRemoteAdd } from './add.js'
import { pinRemoteLs } from './ls.js'
import { pinRemoteRm } from './rm.js'
import { pinRemoteServiceAdd } from './service-add.js'
import { pinRemoteServiceLs } from './service-ls.js'
import { pinRemoteServiceRm } from './service-rm.js'
import { pinRemoteRequires, registerPinRemote } from './services.js'

export type { RemotePinOutput } from './common.js'
export type { PinServicesList, ServiceDetails, PinCount } from './service-ls.js'
export { MfsPinPolicy } from './mfs-policy.js'

export function pinRemotePlugin (): Plugin {
  return {
    name: 'pin-remote',
    requires: pinRemoteRequires,
    register: registerPinRemote,
    groups: [
      { path: ['pin', 'remote'], description: 'Pin (and unpin) objects to remote pinning service.' },
      { path: ['pin', 'remote', 'service'], description: 'Configure remote pinning services.' }
    ],
    commands: [pinRemoteAdd, pinRemoteLs, pinRemoteRm, pinRemoteServiceAdd, pinRemoteServiceLs, pinRemoteServiceRm]
  }
}
