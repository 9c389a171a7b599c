// The p2p family's service: deps.p2p (its tunnels and listeners are closed when the node stops). Apart
// from the commands, so that a node built from the manifest loads no command module at start.
import { asFunction, type AwilixContainer } from 'awilix/browser'
import type { Cradle } from '../../core/cradle.js'
import { createP2p, type P2pService } from '../../core/p2p/index.js'

declare module '../../core/cradle.js' {
  interface Cradle {
    /** libp2p stream mounting: `p2p listen|forward` listeners and their tunnels (core/p2p) */
    p2p: P2pService
  }
}

export const p2pRequires = ['config', 'p2p']

export function registerP2p (container: AwilixContainer<Cradle>): void {
  container.register({
    p2p: asFunction(({ libp2p, logging }: Cradle) => createP2p({ libp2p, logger: logging.forComponent('p2p-mount') })).singleton()
  })
}
