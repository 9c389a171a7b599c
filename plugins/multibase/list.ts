// ipfs multibase list: the same command definition as `ipfs cid bases`.
import { defineCommand } from '../../registry/define.js'
import { cidBases } from '../cid/bases.js'

export const multibaseList = defineCommand({ ...cidBases, path: ['multibase', 'list'] })
