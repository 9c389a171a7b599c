// ipfs config show (kubo core/commands/config.go configShowCmd).
import type { KuboConfig } from '../../core/config/index.js'
import { expandAutoConfValues } from '../../core/config/autoconf.js'
import { repoConfig, sortKeysDeep } from '../../core/config/schema.js'
import { defineCommand } from '../../registry/define.js'
import { goMarshal } from './gojson.js'
import type { ConfigShowOutput } from './output.js'
import { PINNING_CONCEAL, scrub, scrubPrivKey } from './repo.js'

export const configShow = defineCommand({
  path: ['config', 'show'],
  repoAccess: 'config',
  description: 'Output config file contents.',
  help: 'NOTE: For security reasons, this command will omit your private key and remote services. If you would like to make a full backup of your config (private key included), you must copy the config file from your repo.',
  output: 'single',
  run ({ options, deps: { config } }): ConfigShowOutput {
    let cfg: KuboConfig = config.get()
    // --expand-auto is the parent command's option (Kubo reads inherited options)
    if ((options as { expandAuto?: boolean }).expandAuto === true) cfg = expandAutoConfValues(repoConfig(config), cfg)
    cfg = scrubPrivKey(cfg)
    cfg = scrub(cfg, ['API', 'Authorizations'])
    cfg = scrub(cfg, PINNING_CONCEAL)
    return sortKeysDeep(cfg) as ConfigShowOutput
  },
  text: (out) => goMarshal(out, true) + '\n'
})
