// ipfs pin remote ls (kubo core/commands/pin/remotepin.go listRemotePinCmd): GET /pins with the filters,
// batch after batch, streamed as they come.
import { defineCommand } from '../../registry/define.js'
import { lsFilter, remotePinLine, serviceFromRequest, serviceOption, toRemotePinOutput, type RemotePinOutput } from './common.js'

export const pinRemoteLs = defineCommand({
  path: ['pin', 'remote', 'ls'],
  description: 'List objects pinned to remote pinning service.',
  help: `Returns a list of objects that are pinned to a remote pinning service.

NOTE: By default, it will only show matching objects in 'pinned' state.
Pass '--status=queued,pinning,pinned,failed' to list pins in all states.`,
  options: {
    ...serviceOption,
    name: { type: 'string', description: 'Return pins with names that contain the value provided (case-sensitive, exact match).' },
    cid: { type: 'strings', delimiter: ',', description: 'Return pins for the specified CIDs (comma-separated).' },
    status: { type: 'strings', delimiter: ',', default: ['pinned'], description: 'Return pins with the specified statuses (queued,pinning,pinned,failed).' }
  },
  output: 'ndjson',
  async * run ({ options, deps, signal }): AsyncGenerator<RemotePinOutput> {
    const client = serviceFromRequest(deps.config, options.service)
    const filter = lsFilter(options)
    for await (const ps of client.ls(filter, signal)) yield toRemotePinOutput(ps, c => deps.cidEncoder.encode(c))
  },
  text: remotePinLine
})
