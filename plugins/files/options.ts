// Options shared by several files commands (Kubo's cidVersionOption, hashOption).
import type { OptionSpec } from '../../registry/types.js'

export const cidVersionOption: OptionSpec<'int'> = { type: 'int', aliases: ['cid-ver'], description: 'Cid version to use. (experimental)' }
export const hashOption: OptionSpec<'string'> = { type: 'string', description: 'Hash function to use. Will set Cid version to 1 if used. (experimental)' }
