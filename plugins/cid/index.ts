// `ipfs cid …`: convert and discover properties of CIDs (all run without a repo).
import type { Plugin } from '../../registry/types.js'
import { cidBase32 } from './base32.js'
import { cidBases } from './bases.js'
import { cidCodecs } from './codecs.js'
import { cidFormat } from './format.js'
import { cidHashes } from './hashes.js'
import { cidInspect } from './inspect.js'

export type { CidFormatOutput, CidInspectOutput, CodeAndNameOutput } from './output.js'

export function cidPlugin (): Plugin {
  return {
    name: 'cid',
    groups: [{ path: ['cid'], description: 'Convert and discover properties of CIDs', noRepo: true }],
    commands: [cidBase32, cidBases, cidCodecs, cidFormat, cidHashes, cidInspect]
  }
}
