// pin remote family: ipfs pin remote add/ls/rm and pin remote service add/ls/rm against Pinning Service
// API servers named in Pinning.RemoteServices, plus the daemon's MFS pin policy (remotePinMfs).
import { asFunction, type AwilixContainer } from 'awilix/browser'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import type { Cradle } from '../../core/cradle.js'
import type { Plugin } from '../../registry/types.js'
import { pinRemoteAdd } from './add.js'
import { pinRemoteLs } from './ls.js'
import { pinRemoteRm } from './rm.js'
import { pinRemoteServiceAdd } from './service-add.js'
import { pinRemoteServiceLs } from './service-ls.js'
import { pinRemoteServiceRm } from './service-rm.js'
import { MfsPinPolicy } from './mfs-policy.js'

export type { RemotePinOutput } from './common.js'
export type { PinServicesList, ServiceDetails, PinCount } from './service-ls.js'
export { MfsPinPolicy } from './mfs-policy.js'

declare module '../../core/cradle.js' {
  interface Cradle {
    /** the MFS pin policy (Pinning.RemoteServices.*.Policies.MFS), running in the daemon */
    remotePinMfs: MfsPinPolicy
  }
}

export function pinRemotePlugin (): Plugin {
  return {
    name: 'pin-remote',
    requires: ['config', 'blockstore', 'resolver', 'remotePinMfs'],
    register (container: AwilixContainer<Cradle>) {
      container.register({
        remotePinMfs: asFunction(({ config, node, logging, keystore }: Cradle) => new MfsPinPolicy({
          config,
          daemon: node.daemon,
          logger: logging.forComponent('remotepinning/mfs'),
          peerId: () => peerIdFromPrivateKey(keystore.self()).toString(),
          libp2p: () => container.cradle.libp2p,
          mfsRoot: async () => container.hasRegistration('mfs') ? await container.cradle.mfs.flush('/') : null,
          pollInterval: process.env.MFS_PIN_POLL_INTERVAL
        })).singleton()
      })
    },
    groups: [
      { path: ['pin', 'remote'], description: 'Pin (and unpin) objects to remote pinning service.' },
      { path: ['pin', 'remote', 'service'], description: 'Configure remote pinning services.' }
    ],
    commands: [pinRemoteAdd, pinRemoteLs, pinRemoteRm, pinRemoteServiceAdd, pinRemoteServiceLs, pinRemoteServiceRm]
  }
}
