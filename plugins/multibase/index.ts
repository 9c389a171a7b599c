// `ipfs multibase …`: encode, decode and transcode with multibase (all run without a repo).
import type { Plugin } from '../../registry/types.js'
import { multibaseDecode } from './decode.js'
import { multibaseEncode } from './encode.js'
import { multibaseList } from './list.js'
import { multibaseTranscode } from './transcode.js'

export function multibasePlugin (): Plugin {
  return {
    name: 'multibase',
    groups: [{ path: ['multibase'], description: 'Encode and decode files or stdin with multibase format', noRepo: true }],
    commands: [multibaseDecode, multibaseEncode, multibaseList, multibaseTranscode]
  }
}
