// The pubsub family (Kubo core/commands/pubsub.go) over the node's pubsub service (core/libp2p/pubsub.ts).
import type { Plugin } from '../../registry/types.js'
import { pubsubLs, pubsubPeers } from './ls.js'
import { pubsubPub } from './pub.js'
import { pubsubReset } from './reset.js'
import { pubsubSub } from './sub.js'

export function pubsubPlugin (): Plugin {
  return {
    name: 'pubsub',
    requires: ['datastore', 'node'],
    groups: [{
      path: ['pubsub'],
      description: 'An experimental publish-subscribe system on ipfs.',
      status: 'experimental',
      help: "ipfs pubsub allows you to publish messages to a given topic, and also to\nsubscribe to new messages on a given topic.\n\nEXPERIMENTAL FEATURE\n\n  This is an opt-in feature optimized for IPNS over PubSub\n  (https://specs.ipfs.tech/ipns/ipns-pubsub-router/).\n\n  The default message validator is designed for IPNS record protocol.\n  For custom pubsub applications requiring different validation logic,\n  use go-libp2p-pubsub (https://github.com/libp2p/go-libp2p-pubsub)\n  directly in a dedicated binary.\n\n  To enable, set 'Pubsub.Enabled' config to true."
    }],
    commands: [pubsubLs, pubsubPeers, pubsubPub, pubsubSub, pubsubReset]
  }
}
