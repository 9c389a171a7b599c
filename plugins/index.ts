// The built-in plugins, in a fixed order (no auto-loading: grep-able, deterministic).
import type { Plugin } from '../registry/types.js'
import { cliPlugin } from './cli/index.js'
import { versionPlugin } from './version/index.js'
import { idPlugin } from './id/index.js'
import { commandsPlugin } from './commands/index.js'
import { logPlugin } from './log/index.js'
import { diagPlugin } from './diag/index.js'
import { shutdownPlugin } from './shutdown/index.js'
import { removedPlugin } from './removed/index.js'
import { objectPlugin } from './object/index.js'
import { mountPlugin } from './mount/index.js'
import { updatePlugin } from './update/index.js'
import { keyPlugin } from './key/index.js'
import { cidPlugin } from './cid/index.js'
import { multibasePlugin } from './multibase/index.js'
import { configPlugin } from './config/index.js'
import { bootstrapPlugin } from './bootstrap/index.js'
import { blockPlugin } from './block/index.js'
import { catPlugin } from './cat/index.js'
import { getPlugin } from './get/index.js'
import { lsPlugin } from './ls/index.js'
import { refsPlugin } from './refs/index.js'
import { addPlugin } from './add/index.js'
import { dagPlugin } from './dag/index.js'
import { pinPlugin } from './pin/index.js'
import { pinRemotePlugin } from './pin-remote/index.js'
import { repoPlugin } from './repo/index.js'
import { filesPlugin } from './files/index.js'
import { filestorePlugin } from './filestore/index.js'
import { bitswapPlugin } from './bitswap/index.js'
import { routingPlugin } from './routing/index.js'
import { providePlugin } from './provide/index.js'
import { statsPlugin } from './stats/index.js'
import { dhtPlugin } from './dht/index.js'
import { namePlugin } from './name/index.js'
import { resolvePlugin } from './resolve/index.js'
import { pubsubPlugin } from './pubsub/index.js'
import { swarmPlugin } from './swarm/index.js'
import { pingPlugin } from './ping/index.js'
import { p2pPlugin } from './p2p/index.js'

export function builtinPlugins (): Plugin[] {
  return [
    cliPlugin(),
    keyPlugin(),
    versionPlugin(),
    idPlugin(),
    commandsPlugin(),
    logPlugin(),
    diagPlugin(),
    shutdownPlugin(),
    removedPlugin(),
    objectPlugin(),
    mountPlugin(),
    updatePlugin(),
    cidPlugin(),
    multibasePlugin(),
    configPlugin(),
    bootstrapPlugin(),
    blockPlugin(),
    catPlugin(),
    getPlugin(),
    lsPlugin(),
    addPlugin(),
    refsPlugin(),
    dagPlugin(),
    pinPlugin(),
    pinRemotePlugin(),
    repoPlugin(),
    filesPlugin(),
    filestorePlugin(),
    bitswapPlugin(),
    routingPlugin(),
    providePlugin(),
    statsPlugin(),
    dhtPlugin(),
    namePlugin(),
    resolvePlugin(),
    pubsubPlugin(),
    swarmPlugin(),
    pingPlugin(),
    p2pPlugin()
  ]
}
