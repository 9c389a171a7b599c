// ipfs pubsub ls / peers: subscribed topics and pubsub peers (Kubo core/commands/pubsub.go).
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { multibaseOf } from '../../core/multibase.js'
import { escNonPrint } from '../../core/go/strings.js'
import { decodeUrlArg, encodeUrlArgs, mb64, pubsubOf } from './common.js'

export interface StringListOutput { Strings: string[] | null }

const lines = (list: string[] | null): string => (list ?? []).map(s => `${escNonPrint(s)}\n`).join('')

export const pubsubLs = defineCommand({
  path: ['pubsub', 'ls'],
  description: 'List subscribed topics by name.',
  help: "ipfs pubsub ls lists out the names of topics you are currently subscribed to.\n\nEXPERIMENTAL FEATURE\n\n  This is an opt-in feature optimized for IPNS over PubSub\n  (https://specs.ipfs.tech/ipns/ipns-pubsub-router/).\n\n  To enable, set 'Pubsub.Enabled' config to true.",
  status: 'experimental',
  output: 'single',
  run: ({ options, deps }): StringListOutput => {
    const topics = pubsubOf(deps, options.offline).getTopics().map(t => mb64(Buffer.from(t)))
    return { Strings: topics.length > 0 ? topics : null }
  },
  text: (out) => lines((out.Strings ?? []).map(mb => {
    const base = multibaseOf(mb)
    if (base == null) throw new RpcError('selected encoding not supported')
    return Buffer.from(base.decoder.decode(mb)).toString('utf8')
  }))
})

export const pubsubPeers = defineCommand({
  path: ['pubsub', 'peers'],
  description: 'List peers we are currently pubsubbing with.',
  help: "ipfs pubsub peers with no arguments lists out the pubsub peers you are\ncurrently connected to. If given a topic, it will list connected peers who are\nsubscribed to the named topic.\n\nEXPERIMENTAL FEATURE\n\n  This is an opt-in feature optimized for IPNS over PubSub\n  (https://specs.ipfs.tech/ipns/ipns-pubsub-router/).\n\n  To enable, set 'Pubsub.Enabled' config to true.",
  status: 'experimental',
  args: [{ name: 'topic', kind: 'string', description: 'Topic to list connected peers of.' }],
  output: 'single',
  cliArgs: encodeUrlArgs,
  run: ({ args, options, deps }): StringListOutput => {
    const service = pubsubOf(deps, options.offline)
    const topic = args.length > 0 ? decodeUrlArg(args[0]) : ''
    const peers = (topic !== '' ? service.getSubscribers(topic) : service.getPeers()).map(p => p.toString()).sort()
    return { Strings: peers }
  },
  text: (out) => lines(out.Strings)
})
