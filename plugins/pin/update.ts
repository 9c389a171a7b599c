// ipfs pin update (kubo core/commands/pin/pin.go updatePinCmd, boxo pinner Update): move a recursive
// pin from one DAG to another, checking only the parts of the new DAG that differ from the old one.
import { defineCommand } from '../../registry/define.js'
import { fastProvideOptions } from '../shared/cmdutils.js'
import { fastProvide } from '../shared/fast-provide.js'
import { resolveRoot } from './common.js'
import type { PinOutput } from './output.js'

export const pinUpdate = defineCommand({
  path: ['pin', 'update'],
  description: 'Update a recursive pin.',
  help: `Efficiently pins a new object based on differences from an existing one and,
by default, removes the old pin.

This command is useful when the new pin contains many similarities or is a
derivative of an existing one, particularly for large objects. This allows a more
efficient DAG-traversal which fully skips already-pinned branches from the old
object. As a requirement, the old object needs to be an existing recursive
pin.`,
  args: [
    { name: 'from-path', kind: 'string', required: true, description: 'Path to old object.' },
    { name: 'to-path', kind: 'string', required: true, description: 'Path to a new object to be pinned.' }
  ],
  options: {
    unpin: { type: 'bool', default: true, description: 'Remove the old pin.' },
    ...fastProvideOptions('pin update')
  },
  output: 'single',
  async run ({ args, options, deps, signal }): Promise<PinOutput> {
    const from = await resolveRoot(deps, args[0], signal)
    const to = await resolveRoot(deps, args[1], signal)
    await deps.gcLock.withShared(async () => { await deps.pins.update(from, to, { unpin: options.unpin, signal }) })
    // fast-provide-* for the new root (plugins/shared/fast-provide.ts); never for an offline request
    if (options.offline !== true) await fastProvide(deps, [to], options, { pinned: true, pinnedRoot: true }, signal)
    return { Pins: [deps.cidEncoder.encode(from), deps.cidEncoder.encode(to)] }
  },
  text: (out) => `updated ${out.Pins[0]} to ${out.Pins[1]}\n`
})
