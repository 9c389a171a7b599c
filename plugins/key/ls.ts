// ipfs key ls: the node identity ("self") and every stored key. The deprecated `key list` is this
// same command under another path (Kubo reuses its Options, Run and Encoders).
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import type { Invocation } from '../../registry/types.js'
import { SELF, formatId, ipnsBaseOption, keyEncoder } from './common.js'
import { keyListText } from './text.js'
import type { KeyOutput, KeyOutputList } from './output.js'

async function listKeys ({ options, deps: { keystore }, log }: Invocation<{ ipnsBase: string }>): Promise<KeyOutputList> {
  let enc
  try { enc = keyEncoder(options.ipnsBase) } catch (err) {
    throw new RpcError(`cannot get key encoder: ${(err as Error).message}`)
  }
  let names: string[]
  try { names = await keystore.list() } catch (err) {
    throw new RpcError(`listing keys failed: cannot list keys in keystore: ${(err as Error).message}`)
  }
  const keys: KeyOutput[] = [{ Name: SELF, Id: formatId(enc, keystore.self()) }]
  // Go's sort.Strings: byte order
  for (const name of [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))) {
    try {
      keys.push({ Name: name, Id: formatId(enc, await keystore.get(name)) })
    } catch (err) {
      log.error(`cannot get key from keystore: ${(err as Error).message}`)
    }
  }
  return { Keys: keys }
}

export const keyLs = defineCommand({
  path: ['key', 'ls'],
  description: 'List all local keypairs.',
  options: {
    l: { type: 'bool', description: 'Show extra information about keys.' },
    'ipns-base': ipnsBaseOption
  },
  output: 'single',
  run: listKeys,
  text: (out: KeyOutputList, { options }) => keyListText(out, options.l === true)
})
