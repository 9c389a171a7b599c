// ipfs pin remote rm (kubo core/commands/pin/remotepin.go rmRemotePinCmd): list with ls's filters, refuse
// to remove more than one pin without --force, then DELETE /pins/{requestid} for each. No output.
import { RpcError } from '../../core/errors.js'
import { defineCommand } from '../../registry/define.js'
import { lsFilter, serviceFromRequest, serviceOption } from './common.js'

export const pinRemoteRm = defineCommand({
  path: ['pin', 'remote', 'rm'],
  description: 'Remove pins from remote pinning service.',
  help: `Removes remote pins, allowing them to be garbage-collected if needed.

This command accepts the same search query parameters as 'ls', and it is good
practice to execute 'ls' before 'rm' to confirm the list of pins to be removed.

To remove a single pin for a specific CID:

  $ ipfs pin remote ls --service=mysrv --cid=bafkqaaa
  $ ipfs pin remote rm --service=mysrv --cid=bafkqaaa

When more than one pin matches the query on the remote service, an error is
returned.  To confirm the removal of multiple pins, pass '--force':

  $ ipfs pin remote ls --service=mysrv --name=popular-name
  $ ipfs pin remote rm --service=mysrv --name=popular-name --force

NOTE: When no '--status' is passed, implicit '--status=pinned' is used.
To list and then remove all pending pin requests, pass an explicit status list:

  $ ipfs pin remote ls --service=mysrv --status=queued,pinning,failed
  $ ipfs pin remote rm --service=mysrv --status=queued,pinning,failed --force`,
  options: {
    ...serviceOption,
    name: { type: 'string', description: 'Remove pins with names that contain provided value (case-sensitive, exact match).' },
    cid: { type: 'strings', delimiter: ',', description: 'Remove pins for the specified CIDs.' },
    status: { type: 'strings', delimiter: ',', default: ['pinned'], description: 'Remove pins with the specified statuses (queued,pinning,pinned,failed).' },
    force: { type: 'bool', default: false, description: 'Allow removal of multiple pins matching the query without additional confirmation.' }
  },
  // Kubo emits nothing: 200 with an empty body
  output: 'ndjson',
  async run ({ options, deps, signal }): Promise<undefined> {
    const client = serviceFromRequest(deps.config, options.service)
    const ids: string[] = []
    try {
      const filter = lsFilter(options)
      for await (const ps of client.ls(filter, signal)) ids.push(ps.requestid)
    } catch (err) {
      throw new RpcError(`error while listing remote pins: ${(err as Error).message}`)
    }
    if (ids.length > 1 && !options.force) throw new RpcError('multiple remote pins are matching this query, add --force to confirm the bulk removal')
    for (const id of ids) {
      try {
        await client.delete(id, signal)
      } catch (err) {
        throw new RpcError(`removing pin identified by requestid=${JSON.stringify(id)} failed: ${(err as Error).message}`)
      }
    }
  }
})
