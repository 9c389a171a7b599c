// ipfs commands completion fish (kubo core/commands/commands.go): a fish completion script for the CLI.
import { defineCommand } from '../../registry/define.js'
import { completionTree, fishCompletion } from './completion-model.js'

export const commandsCompletionFish = defineCommand({
  path: ['commands', 'completion', 'fish'],
  description: 'Generate fish shell completions.',
  help: 'Generates command completions for the fish shell.',
  http: false,
  output: 'bytes',
  contentType: 'text/plain',
  run: ({ deps: { registry } }) => new TextEncoder().encode(fishCompletion(completionTree(registry)))
})
