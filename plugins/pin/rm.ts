// ipfs pin rm (kubo core/commands/pin/pin.go rmPinCmd, coreapi PinAPI.Rm): resolve each path and
// remove its pin (recursive by default; -r=false removes a direct pin only).
import { defineCommand } from '../../registry/define.js'
import { resolveRoot } from './common.js'
import type { PinOutput } from './output.js'

export const pinRm = defineCommand({
  path: ['pin', 'rm'],
  description: 'Remove object from pin-list.',
  help: `Removes the pin from the given object allowing it to be garbage
collected if needed. (By default, recursively. Use -r=false for direct pins.)

A pin may not be removed because the specified object is not pinned or pinned
indirectly. To determine if the object is pinned indirectly, use the command:
ipfs pin ls -t indirect <cid>`,
  args: [{ name: 'ipfs-path', kind: 'string', required: true, variadic: true, stdin: true, description: 'Path to object(s) to be unpinned.' }],
  bodyArgs: true,
  options: {
    recursive: { type: 'bool', aliases: ['r'], default: true, description: 'Recursively unpin the object linked to by the specified object(s).' }
  },
  output: 'single',
  async run ({ args, options, deps, signal }): Promise<PinOutput> {
    const pins: string[] = []
    for (const arg of args) {
      const cid = await resolveRoot(deps, arg, signal)
      pins.push(deps.cidEncoder.encode(cid))
      // Kubo takes the pin lock here too, so a running GC finishes first
      await deps.gcLock.withShared(async () => { await deps.pins.unpin(cid, { recursive: options.recursive, signal }) })
    }
    return { Pins: pins }
  },
  text: (out) => out.Pins.map(k => `unpinned ${k}\n`).join('')
})
