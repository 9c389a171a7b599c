// config family: config, config/show, config/edit, config/replace, config/profile/apply.
import type { Plugin } from '../../registry/types.js'
import { profileHelp } from '../../core/config/profiles.js'
import { configConfig } from './config.js'
import { configShow } from './show.js'
import { configEdit } from './edit.js'
import { configReplace } from './replace.js'
import { configProfileApply } from './apply.js'

export type { ConfigField, ConfigUpdateOutput, ConfigShowOutput } from './output.js'

export function configPlugin (): Plugin {
  return {
    name: 'config',
    requires: ['config'],
    groups: [{
      path: ['config', 'profile'],
      description: 'Apply profiles to config.',
      help: `Available profiles:\n${profileHelp()}`
    }],
    commands: [configConfig, configShow, configEdit, configReplace, configProfileApply]
  }
}
