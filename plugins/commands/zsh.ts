// ipfs commands completion zsh (kubo core/commands/commands.go): a zsh completion script for the CLI.
import { completionCommand, zshCompletion } from './completion-model.js'

export const commandsCompletionZsh = completionCommand('zsh', zshCompletion)
