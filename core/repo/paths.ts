// Where the repo is and whether a daemon announced itself: what the CLI reads before it decides to
// load a node, so this module imports nothing heavy (core/repo/index.ts re-exports it).
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { NotInitializedError, RpcError } from '../errors.js'
import { configPath, loadConfigFile, type KuboConfig } from '../config/index.js'
import { REPO_VERSION } from '../version.js'

export function defaultRepoPath (): string {
  const env = process.env.IPFS_PATH
  if (env != null && env !== '') return path.resolve(env)
  return path.join(os.homedir(), '.tsipfs')
}

export async function isInitialized (repoPath: string): Promise<boolean> {
  return await fs.access(path.join(repoPath, 'config')).then(() => true, () => false)
}

/** The daemon's API address from $IPFS_PATH/api, if present. */
export async function readApiFile (repoPath: string): Promise<string | undefined> {
  const text = await fs.readFile(path.join(repoPath, 'api'), 'utf8').catch(() => undefined)
  return text?.trim() === '' ? undefined : text?.trim()
}

export async function readRepoConfig (repoPath: string, configFile?: string): Promise<KuboConfig> {
  if (!await isInitialized(repoPath)) throw new NotInitializedError()
  const version = (await fs.readFile(path.join(repoPath, 'version'), 'utf8').catch(() => `${REPO_VERSION}`)).trim()
  if (version !== String(REPO_VERSION)) {
    throw new RpcError(`ipfs repo needs migration, please run migration tool.\nSee https://github.com/ipfs/fs-repo-migrations/blob/master/run.md\nSorry for the inconvenience. In the future, these will run automatically.`)
  }
  return await loadConfigFile(configPath(repoPath, configFile))
}
