// ipfs commands completion bash (kubo core/commands/commands.go): a bash completion script for the CLI.
import { defineCommand } from '../../registry/define.js'
import { completionTree, bashCompletion } from './completion-model.js'

export const commandsCompletionBash = defineCommand({
  path: ['commands', 'completion', 'bash'],
  description: 'Generate bash shell completions.',
  help: 'Generates command completions for the bash shell.',
  http: false,
  output: 'bytes',
  contentType: 'text/plain',
  run: ({ deps: { registry } }) => new TextEncoder().encode(bashCompletion(completionTree(registry)))
})
