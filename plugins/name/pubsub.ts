// ipfs name pubsub state|subs|cancel: the IPNS-over-pubsub resolver (Kubo core/commands/name/ipnsps.go).
import { defineCommand } from '../../registry/define.js'
import { InvalidArgumentError } from '../../core/errors.js'
import { ipnsBaseOption, keyEncoder } from '../key/common.js'
import { parseIpnsName } from '../../core/namesys/index.js'
import { ERR_PUBSUB_DISABLED, escNonPrint } from './common.js'
import type { StringListOutput } from './output.js'

export const namePubsubState = defineCommand({
  path: ['name', 'pubsub', 'state'],
  description: 'Query the state of IPNS pubsub.',
  status: 'experimental',
  output: 'single',
  run: ({ deps: { nameSystem } }): { Enabled: boolean } => ({ Enabled: nameSystem.pubsub != null }),
  text: (out) => out.Enabled ? 'enabled\n' : 'disabled\n'
})

export const namePubsubSubs = defineCommand({
  path: ['name', 'pubsub', 'subs'],
  description: 'Show current name subscriptions.',
  status: 'experimental',
  options: { 'ipns-base': ipnsBaseOption },
  output: 'single',
  run: ({ options, deps: { nameSystem } }): StringListOutput => {
    const enc = keyEncoder(options.ipnsBase)
    if (nameSystem.pubsub == null) throw new InvalidArgumentError(ERR_PUBSUB_DISABLED)
    const paths = nameSystem.pubsub.subscriptions().map(mh => '/ipns/' + enc(mh))
    return { Strings: paths.length > 0 ? paths : null }
  },
  text: (out) => (out.Strings ?? []).map(s => `${escNonPrint(s)}\n`).join('')
})

export const namePubsubCancel = defineCommand({
  path: ['name', 'pubsub', 'cancel'],
  description: 'Cancel a name subscription.',
  status: 'experimental',
  args: [{ name: 'name', kind: 'string', required: true, description: 'Name to cancel the subscription for.' }],
  output: 'single',
  run: ({ args, deps: { nameSystem } }): { Canceled: boolean } => {
    if (nameSystem.pubsub == null) throw new InvalidArgumentError(ERR_PUBSUB_DISABLED)
    const name = args[0].replace(/^\/ipns\//, '')
    const mh = parseIpnsName(name)
    if (mh == null) throw new InvalidArgumentError(`not a valid IPNS name: failed to parse peer ID: ${name}`)
    return { Canceled: nameSystem.pubsub.cancel(mh) }
  },
  text: (out) => out.Canceled ? 'canceled\n' : 'no subscription\n'
})
