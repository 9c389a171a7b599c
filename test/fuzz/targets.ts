// Every fuzz target, in the order the specs and `npm run fuzz` run them.
import type { Target } from './harness.js'
import { carImport, cids, dagCodecs, dagPbBlocks, multiaddrs, multipartAdd, multipartBig, paths, queryBig, queryStrings } from './targets-rpc.js'
import { configJson, configProto, gatewayNul, gatewayPaths, hostHeaders, rangeHeaders } from './targets-more.js'

export const TARGETS: Target[] = [
  multipartAdd, multipartBig, carImport, dagCodecs, dagPbBlocks, cids, multiaddrs, paths, queryStrings, queryBig,
  configJson, configProto, gatewayPaths, gatewayNul, rangeHeaders, hostHeaders
]

/** The fixed seed of a target in `npm test` (a failure names it; replay with `npm run fuzz -- --target T --seed S`). */
export const fixedSeed = (t: Target): number => [...t.name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 0x1f2e3d)
