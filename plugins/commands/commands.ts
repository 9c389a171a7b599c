// ipfs commands (kubo core/commands/commands.go): the command tree, from the registry.
import { defineCommand } from '../../registry/define.js'
import type { CommandsOutput } from './output.js'

/** kubo cmdPathStrings: every path (and with flags, one line per option), sorted bytewise. */
export function commandLines (root: CommandsOutput, showOptions: boolean): string[] {
  const lines: string[] = []
  const recurse = (prefix: string, cmd: CommandsOutput): void => {
    const path = prefix + cmd.Name
    lines.push(path)
    if (prefix !== '' && showOptions) {
      for (const opt of cmd.Options) {
        lines.push(opt.Names.map(n => `${path} ${n.length === 1 ? '-' : '--'}${n}`).join(' / '))
      }
    }
    for (const sub of cmd.Subcommands) recurse(path + ' ', sub)
  }
  recurse('', root)
  // Go's slices.Sort on strings compares bytes
  return lines.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
}

export const commandsCommands = defineCommand({
  path: ['commands'],
  description: 'List all available commands.',
  help: 'Lists all available commands (and subcommands) and exits.',
  noRepo: true,
  options: {
    flags: { type: 'bool', aliases: ['f'], description: 'Show command flags' }
  },
  output: 'single',
  run: ({ deps: { registry } }): CommandsOutput => registry.tree(),
  text: (out, { options }) => commandLines(out, options.flags === true).map(l => l + '\n').join('')
})
