// ipfs config profile apply <profile> (kubo core/commands/config.go configProfileApplyCmd, transformConfig).
import { promises as fs, constants as fsConstants } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { randomInt } from 'node:crypto'
import type { Json, KuboConfig } from '../../core/config/index.js'
import { profiles } from '../../core/config/profiles.js'
import { normalizeConfig, repoConfig, setRepoConfig, sortKeysDeep } from '../../core/config/schema.js'
import { RpcError } from '../../core/errors.js'
import { defineCommand } from '../../registry/define.js'
import { formatJsonDiff } from './jsondiff.js'
import type { ConfigUpdateOutput } from './output.js'
import { scrubPrivKey } from './repo.js'

/** A free TCP port, as Kubo's randomports asks the OS for one. */
async function availablePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.once('error', reject)
    srv.listen(0, () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr != null ? addr.port : 0
      srv.close(() => { resolve(port) })
    })
  })
}

/** FSRepo.BackupConfig: os.CreateTemp(repo, "config-"+prefix) holding the current config file. */
async function backupConfig (repoPath: string, configFile: string, prefix: string): Promise<string> {
  const data = await fs.readFile(configFile)
  for (let tries = 0; ; tries++) {
    const name = path.join(repoPath, `config-${prefix}${randomInt(0, 2 ** 32)}`)
    try {
      const fh = await fs.open(name, fsConstants.O_RDWR | fsConstants.O_CREAT | fsConstants.O_EXCL, 0o600)
      try { await fh.writeFile(data) } finally { await fh.close() }
      return name
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 10000) throw err
    }
  }
}

export const configProfileApply = defineCommand({
  path: ['config', 'profile', 'apply'],
  repoAccess: 'config',
  description: 'Apply profile to config.',
  args: [{ name: 'profile', kind: 'string', required: true, description: 'The profile to apply to the config.' }],
  options: {
    'dry-run': { type: 'bool', description: 'print difference between the current config and the config that would be generated' }
  },
  output: 'single',
  async run ({ args, options, deps: { config, repoPath } }): Promise<ConfigUpdateOutput> {
    const name = args[0]
    const profile = Object.hasOwn(profiles, name) ? profiles[name] : undefined
    if (profile == null) throw new RpcError(`${name} is not a profile`)
    const dryRun = options.dryRun === true

    const oldCfg = repoConfig(config)
    const changed: KuboConfig = structuredClone(oldCfg)
    profile.apply(changed, name === 'randomports' ? { port: await availablePort() } : undefined)
    let newCfg: KuboConfig
    try {
      newCfg = normalizeConfig(changed)
    } catch (err) {
      throw new RpcError(`failure to decode config: ${(err as Error).message}`)
    }
    if (!dryRun) {
      if (repoPath !== '' && config.file !== '') await backupConfig(repoPath, config.file, `pre-${name}-`)
      await setRepoConfig(config, newCfg)
    }
    return {
      OldCfg: sortKeysDeep(scrubPrivKey(oldCfg)) as { [k: string]: Json },
      NewCfg: sortKeysDeep(scrubPrivKey(newCfg)) as { [k: string]: Json }
    }
  },
  text: (out) => formatJsonDiff(out.OldCfg, out.NewCfg)
})
