// The p2p family (Kubo core/commands/p2p.go): libp2p stream mounting over the node's p2p service
// (core/p2p), gated by Experimental.Libp2pStreamMounting. Registers deps.p2p (its tunnels and listeners
// are closed when the node stops).
import type { Plugin } from '../../registry/types.js'
import { p2pRequires, registerP2p } from './services.js'
import { p2pListen } from './listen.js'
import { p2pForward } from './forward.js'
import { p2pClose } from './close.js'
import { p2pLs } from './ls.js'
import { p2pStreamLs } from './stream/ls.js'
import { p2pStreamClose } from './stream/close.js'

export function p2pPlugin (): Plugin {
  return {
    name: 'p2p',
    requires: p2pRequires,
    register: registerP2p,
    groups: [
      { path: ['p2p'], description: 'Libp2p stream mounting.', status: 'experimental', help: 'Create and use tunnels to remote peers over libp2p\n\nNote: this command is experimental and subject to change as usecases and APIs\nare refined' },
      { path: ['p2p', 'stream'], description: 'P2P stream management.', status: 'experimental', help: 'Create and manage p2p streams' }
    ],
    commands: [p2pStreamLs, p2pStreamClose, p2pForward, p2pListen, p2pClose, p2pLs]
  }
}
