// bootstrap family: bootstrap (= list), bootstrap/list, bootstrap/add, bootstrap/rm, bootstrap/rm/all.
import type { Plugin } from '../../registry/types.js'
import { bootstrapBootstrap } from './bootstrap.js'
import { bootstrapList } from './list.js'
import { bootstrapAdd } from './add.js'
import { bootstrapRm } from './rm.js'
import { bootstrapRmAll } from './all.js'

export type { BootstrapOutput } from './output.js'

export function bootstrapPlugin (): Plugin {
  return {
    name: 'bootstrap',
    requires: ['config'],
    commands: [bootstrapBootstrap, bootstrapList, bootstrapAdd, bootstrapRm, bootstrapRmAll]
  }
}
