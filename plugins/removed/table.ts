// Commands Kubo has removed: each is declared only so that calling it fails with Kubo's message
// (the registry gives every 'removed' command a run that throws `removed, <replacement>`).
import type { CommandSpec, GroupSpec } from '../../registry/types.js'
import { allowBigBlockOption } from '../shared/cmdutils.js'

const DHT = "use 'ipfs routing' instead"
const OBJECT = "use 'ipfs dag' or 'ipfs files' instead"

/** kubo core/commands/dht.go RemovedDHTCmd, object/object.go RemovedObjectCmd */
const removed = (path: string[], replacement: string, description: string): CommandSpec => ({
  path,
  description,
  status: 'removed',
  replacement,
  output: 'single',
  run: () => undefined
})

export const removedGroups: GroupSpec[] = [
  {
    path: ['dht'],
    description: 'Issue commands directly through the DHT.',
    status: 'deprecated',
    replacement: DHT
  },
  {
    path: ['object'],
    description: "Deprecated commands to interact with dag-pb objects. Use 'dag' or 'files' instead.",
    help: "'ipfs object' is a legacy plumbing command used to manipulate dag-pb objects\ndirectly. Deprecated, use more modern 'ipfs dag' and 'ipfs files' instead.",
    status: 'deprecated',
    replacement: OBJECT
  },
  {
    path: ['object', 'patch'],
    description: "Deprecated way to create a new merkledag object based on an existing one. Use MFS with 'files cp|rm' instead.",
    status: 'deprecated',
    replacement: "use 'ipfs files cp' or 'ipfs files rm' instead",
    options: allowBigBlockOption
  }
]

export const removedCommands: CommandSpec[] = [
  ...['findpeer', 'findprovs', 'get', 'provide', 'put'].map(name =>
    removed(['dht', name], DHT, "Removed, use 'ipfs routing' instead.")),
  ...[['data'], ['get'], ['links'], ['new'], ['put'], ['stat'], ['patch', 'append-data'], ['patch', 'set-data']].map(rest =>
    removed(['object', ...rest], OBJECT, "Removed, use 'ipfs dag' or 'ipfs files' instead."))
]
