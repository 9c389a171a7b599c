// ipfs repo migrate (kubo core/commands/repo.go repoMigrateCmd): CLI only (NoRemote), runs without
// opening the repo. Kubo 0.40.1's embedded migrations (16→17, 17→18, and their reverts with --allow-downgrade)
// are core/repo/migrations.ts; `daemon --migrate` runs this command too.
import { defineCommand } from '../../registry/define.js'
import { RpcError, errorMessage } from '../../core/errors.js'
import { REPO_VERSION } from '../../core/version.js'
import { defaultRepoPath } from '../../core/repo/paths.js'
import { repoVersionOf, runMigrations } from '../../core/repo/migrations.js'
import type { MigrateMessage } from './output.js'

export const repoMigrate = defineCommand({
  path: ['repo', 'migrate'],
  description: 'Apply repository migrations to a specific version.',
  help: `'ipfs repo migrate' applies repository migrations to bring the repository
to a specific version. By default, migrates to the latest version supported
by this IPFS binary.

Examples:
  ipfs repo migrate                # Migrate to latest version
  ipfs repo migrate --to=17       # Migrate to version 17
  ipfs repo migrate --to=16 --allow-downgrade  # Downgrade to version 16`,
  options: {
    to: { type: 'int', default: REPO_VERSION, description: 'Target repository version' },
    'allow-downgrade': { type: 'bool', description: 'Allow downgrading to a lower repo version' }
  },
  http: false,
  noRepo: true,
  output: 'ndjson',
  async * run ({ options }): AsyncGenerator<MigrateMessage> {
    const dir = options.repoDir ?? defaultRepoPath()
    const target = options.to
    let current: number
    try {
      current = await repoVersionOf(dir)
    } catch (err) {
      throw new RpcError(`could not get current repo version: ${errorMessage(err)}`)
    }
    if (current === target) {
      yield { Message: `Repository is already at version ${target}.\n` }
      return
    }
    if (target < current && options.allowDowngrade !== true) {
      throw new RpcError(`downgrade from version ${current} to ${target} requires --allow-downgrade flag`)
    }
    yield { Message: `Migrating repository from version ${current} to ${target}...\n` }
    const lines: string[] = []
    try {
      await runMigrations(dir, target, (line) => { lines.push(line + '\n') })
    } catch (err) {
      for (const Message of lines) yield { Message }
      const msg = errorMessage(err)
      yield { Message: `Repository migration failed:\n  ${msg}\nIf you think this is a bug, please file an issue and include this whole log output.\n  https://github.com/ipfs/kubo\n` }
      throw new RpcError(msg)
    }
    for (const Message of lines) yield { Message }
    yield { Message: `Repository successfully migrated to version ${target}.\n` }
    if (target < current) yield { Message: 'WARNING: After downgrading, you must use an IPFS binary compatible with this repository version.\n' }
  },
  text: (out) => out.Message
})
