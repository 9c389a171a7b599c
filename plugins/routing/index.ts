// routing family: Kubo's core/commands/routing.go over core/routing (the WAN and LAN DHTs).
import type { Plugin } from '../../registry/types.js'
import { routingFindprovs } from './findprovs.js'
import { routingFindpeer } from './findpeer.js'
import { routingGet } from './get.js'
import { routingPut } from './put.js'
import { routingProvide } from './provide.js'
import { routingReprovide } from './reprovide.js'

export function routingPlugin (): Plugin {
  return {
    name: 'routing',
    requires: ['config', 'blockstore', 'datastore'],
    groups: [{ path: ['routing'], description: 'Issue routing commands.' }],
    commands: [routingFindprovs, routingFindpeer, routingGet, routingPut, routingProvide, routingReprovide]
  }
}
