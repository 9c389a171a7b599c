// The built-in plugins, in a fixed order (no auto-loading: grep-able, deterministic).
import type { Plugin } from '../registry/types.js'
import { cliPlugin } from './cli/index.js'

export function builtinPlugins (): Plugin[] {
  return [
    cliPlugin()
  ]
}
