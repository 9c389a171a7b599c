// ipfs commands completion fish (kubo core/commands/commands.go): a fish completion script for the CLI.
import { completionCommand, fishCompletion } from './completion-model.js'

export const commandsCompletionFish = completionCommand('fish', fishCompletion)
