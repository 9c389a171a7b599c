// ipfs repo migrate (kubo core/commands/repo.go repoMigrateCmd): CLI only (NoRemote), runs without
// opening the repo. tsipfs writes repo version 18 and ships no migrations, so a repo at 18 is
// reported as current and any other target fails as Kubo's embedded migrations do when none apply.
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { defineCommand } from '../../registry/define.js'
import { RpcError, errorMessage } from '../../core/errors.js'
import { REPO_VERSION } from '../../core/version.js'
import { defaultRepoPath } from '../../core/repo/index.js'
import type { MigrateMessage } from './output.js'

/** migrations.RepoVersion: the number in $IPFS_PATH/version */
async function repoVersionOf (dir: string): Promise<number> {
  await fs.stat(dir).catch((err: NodeJS.ErrnoException) => { throw new Error(`stat ${dir}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.message}`) })
  const file = path.join(dir, 'version')
  const text = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new Error(`open ${file}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.message}`)
  })
  const v = text.trim()
  if (!/^[+-]?\d+$/.test(v)) throw new Error('invalid data in repo version file')
  return Number(v)
}

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
    const err = `no embedded migrations found for version ${current} to ${target}`
    yield { Message: `Repository migration failed:\n  ${err}\nIf you think this is a bug, please file an issue and include this whole log output.\n  https://github.com/ipfs/kubo\n` }
    throw new RpcError(err)
  },
  text: (out) => out.Message
})
