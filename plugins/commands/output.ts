// Wire types of `commands` (kubo core/commands/commands.go): the registry already builds this shape.
export type { CommandsOutput } from '../../registry/registry.js'
