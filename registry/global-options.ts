// Kubo's root options (core/commands/root.go), inherited by every command, in definition order.
import type { OptionSpec } from './types.js'

export const globalOptions: Record<string, OptionSpec> = {
  'repo-dir': { type: 'string', description: 'Path to the repository directory to use.' },
  'config-file': { type: 'string', description: 'Path to the configuration file to use.' },
  config: { type: 'string', aliases: ['c'], description: '[DEPRECATED] Path to the configuration file to use.' },
  debug: { type: 'bool', aliases: ['D'], description: 'Operate in debug mode.' },
  help: { type: 'bool', description: 'Show the full command help text.' },
  h: { type: 'bool', description: 'Show a short version of the command help text.' },
  local: { type: 'bool', aliases: ['L'], description: 'Run the command locally, instead of using the daemon. DEPRECATED: use --offline.' },
  offline: { type: 'bool', description: 'Run the command offline.' },
  api: { type: 'string', description: 'Use a specific API instance (defaults to /ip4/127.0.0.1/tcp/5001)' },
  'api-auth': { type: 'string', description: 'Optional RPC API authorization secret (defined as AuthSecret in API.Authorizations config)' },
  'cid-base': { type: 'string', description: 'Multibase encoding used for version 1 CIDs in output.' },
  'upgrade-cidv0-in-output': { type: 'bool', description: 'Upgrade version 0 to version 1 CIDs in output.' },
  encoding: { type: 'string', aliases: ['enc'], default: 'text', description: 'The encoding type the output should be encoded with (json, xml, or text)' },
  'stream-channels': { type: 'bool', description: 'Stream channel output' },
  timeout: { type: 'string', description: 'Set a global timeout on the command.' }
}
