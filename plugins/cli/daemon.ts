// tsipfs daemon: run the node with its RPC API (and gateway) until stopped.
import { defineCommand } from '../../registry/define.js'

export const cliDaemon = defineCommand({
  path: ['daemon'],
  description: 'Run a network-connected IPFS node.',
  help: "'tsipfs daemon' runs a persistent node with Kubo's RPC API on Addresses.API and the gateway on Addresses.Gateway.",
  cliOnly: true,
  http: false,
  noRepo: true,
  options: {
    init: { type: 'bool', description: 'Initialize ipfs with default settings if not already initialized' },
    'init-config': { type: 'string', description: 'Path to existing configuration file to be loaded during --init' },
    'init-profile': { type: 'string', description: "Configuration profiles to apply for --init. See ipfs init --help for more" },
    routing: { type: 'string', default: 'default', description: "Overrides the routing option" },
    mount: { type: 'bool', description: 'Mounts IPFS to the filesystem using FUSE (experimental)' },
    'mount-ipfs': { type: 'string', description: 'Path to the mountpoint for IPFS (if using --mount). Defaults to config setting.' },
    'mount-ipns': { type: 'string', description: 'Path to the mountpoint for IPNS (if using --mount). Defaults to config setting.' },
    'mount-mfs': { type: 'string', description: 'Path to the mountpoint for MFS (if using --mount). Defaults to config setting.' },
    'unrestricted-api': { type: 'bool', description: 'Allow RPC API access to unlisted hashes' },
    'disable-transport-encryption': { type: 'bool', description: 'Disable transport encryption (for debugging protocols)' },
    'enable-gc': { type: 'bool', description: 'Enable automatic periodic repo garbage collection' },
    'manage-fdlimit': { type: 'bool', default: true, description: 'Check and raise file descriptor limits if needed' },
    migrate: { type: 'bool', description: 'If true, assume yes at the migrate prompt. If false, assume no.' },
    'enable-pubsub-experiment': { type: 'bool', description: "Enable experimental pubsub feature. Overrides Pubsub.Enabled config." },
    'enable-namesys-pubsub': { type: 'bool', description: 'Enable IPNS over pubsub. Implicitly enables pubsub, overrides Ipns.UsePubsub config.' },
    'enable-mplex-experiment': { type: 'bool', description: 'Add the experimental mplex muxer.' },
    'agent-version-suffix': { type: 'string', description: 'Optional suffix to the AgentVersion presented by `ipfs id` and exposed via libp2p identify protocol.' }
  },
  output: 'ndjson',
  // loaded when run: the server is a front end above the plugins (a static import would be a cycle through
  // server/node → plugins/index), and the CLI need not load Koa and the gateway for other commands
  run: async function * (call) { yield * (await import('../../server/daemon.js')).runDaemon(call) },
  text: (out: { Message: string }) => out.Message
})
