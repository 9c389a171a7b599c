// The pin remote family's service: the daemon's MFS pin policy (remotePinMfs). Apart from the commands,
// so that a node built from the manifest loads no command module at start.
import { asFunction, type AwilixContainer } from 'awilix/browser'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import type { Cradle } from '../../core/cradle.js'
import { MfsPinPolicy } from './mfs-policy.js'

declare module '../../core/cradle.js' {
  interface Cradle {
    /** the MFS pin policy (Pinning.RemoteServices.*.Policies.MFS), running in the daemon */
    remotePinMfs: MfsPinPolicy
  }
}

export const pinRemoteRequires = ['config', 'blockstore', 'resolver', 'remotePinMfs']

export function registerPinRemote (container: AwilixContainer<Cradle>): void {
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
}
