// ipfs commands completion bash (kubo core/commands/commands.go): a bash completion script for the CLI.
import { completionCommand, bashCompletion } from './completion-model.js'

export const commandsCompletionBash = completionCommand('bash', bashCompletion)
