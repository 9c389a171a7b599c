// commands family: the command tree and shell completions.
import type { Plugin } from '../../registry/types.js'
import { commandsCommands } from './commands.js'
import { commandsCompletionBash } from './bash.js'
import { commandsCompletionZsh } from './zsh.js'
import { commandsCompletionFish } from './fish.js'

export function commandsPlugin (): Plugin {
  return {
    name: 'commands',
    groups: [{ path: ['commands', 'completion'], description: 'Generate shell completions.', http: false }],
    commands: [commandsCommands, commandsCompletionBash, commandsCompletionZsh, commandsCompletionFish]
  }
}
