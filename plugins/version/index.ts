// version family: version, version/deps, version/check.
import type { Plugin } from '../../registry/types.js'
import { versionVersion } from './version.js'
import { versionDeps } from './deps.js'
import { versionCheck } from './check.js'

export function versionPlugin (): Plugin {
  return {
    name: 'version',
    commands: [versionVersion, versionDeps, versionCheck]
  }
}
