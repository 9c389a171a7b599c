// ipfs commands completion zsh (kubo core/commands/commands.go): a zsh completion script for the CLI.
import { defineCommand } from '../../registry/define.js'
import { completionTree, zshCompletion } from './completion-model.js'

export const commandsCompletionZsh = defineCommand({
  path: ['commands', 'completion', 'zsh'],
  description: 'Generate zsh shell completions.',
  help: 'Generates command completions for the zsh shell.',
  http: false,
  output: 'bytes',
  contentType: 'text/plain',
  run: ({ deps: { registry } }) => new TextEncoder().encode(zshCompletion(completionTree(registry)))
})
