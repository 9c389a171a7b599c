import type { CommandSpec, GroupSpec, OptionSpec } from './types.js'

/** Identity helpers that give a declaration its inferred option types. */
export const defineCommand = <O extends Record<string, OptionSpec>, Out>(spec: CommandSpec<O, Out>): CommandSpec<O, Out> => spec
export const defineGroup = (spec: GroupSpec): GroupSpec => spec
