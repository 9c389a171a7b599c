// ipfs pubsub pub: publish data to a topic (Kubo core/commands/pubsub.go PubsubPubCmd).
import { defineCommand } from '../../registry/define.js'
import { readFileArg } from '../key/common.js'
import { decodeUrlArg, encodeUrlArgs, pubsubOf } from './common.js'

export const pubsubPub = defineCommand({
  path: ['pubsub', 'pub'],
  description: 'Publish data to a given pubsub topic.',
  help: 'ipfs pubsub pub publishes a message to a specified topic.\nIt reads binary data from stdin or a file.\n\nEXPERIMENTAL FEATURE\n\n  This is an opt-in feature optimized for IPNS over PubSub\n  (https://specs.ipfs.tech/ipns/ipns-pubsub-router/).\n\n  To enable, set \'Pubsub.Enabled\' config to true.',
  status: 'experimental',
  args: [
    { name: 'topic', kind: 'string', required: true, description: 'Topic to publish to (multibase encoded when sent over HTTP RPC).' },
    { name: 'data', kind: 'file', required: true, stdin: true, description: 'The data to be published.' }
  ],
  output: 'single',
  cliArgs: encodeUrlArgs,
  async run ({ args, files, options, deps }): Promise<undefined> {
    const service = pubsubOf(deps, options.offline)
    const topic = decodeUrlArg(args[0])
    const data = await readFileArg(files)
    await service.publish(topic, data)
    return undefined
  }
})
