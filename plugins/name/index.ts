// The name family: IPNS publish/resolve and records (Kubo core/commands/name), over core/namesys.
import type { Plugin } from '../../registry/types.js'
import { nameGet } from './get.js'
import { nameInspect } from './inspect.js'
import { namePublish } from './publish.js'
import { namePubsubCancel, namePubsubState, namePubsubSubs } from './pubsub.js'
import { namePut } from './put.js'
import { nameResolve } from './resolve.js'

export function namePlugin (): Plugin {
  return {
    name: 'name',
    requires: ['nameSystem', 'keystore', 'resolver', 'node'],
    groups: [
      { path: ['name'], description: 'Publish and resolve IPNS names.', help: "IPNS is a PKI namespace, where names are the hashes of public keys, and\nthe private key enables publishing new (signed) values. In both publish\nand resolve, the default name used is the node's own PeerID,\nwhich is the hash of its public key.\n\nYou can use the 'ipfs key' commands to list and generate more names and their\nrespective keys." },
      { path: ['name', 'pubsub'], description: 'IPNS pubsub management', status: 'experimental', help: 'Manage and inspect the state of the IPNS pubsub resolver.\n\nNote: this command is experimental and subject to change as the system is refined' }
    ],
    commands: [namePublish, nameResolve, nameGet, namePut, nameInspect, namePubsubState, namePubsubSubs, namePubsubCancel]
  }
}
