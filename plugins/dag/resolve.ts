// ipfs dag resolve (kubo core/commands/dag/resolve.go): the last block on a path and the rest of
// the path inside it.
import { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import { createCidEncoder, type CidEncoder } from '../../core/cid-encoder.js'
import { decodeGoCid, goPathClean } from '../../core/resolver/path.js'
import { multibase } from '../../core/multibase.js'
import { cidLink, resolverOf, textCidEncoder } from './common.js'
import type { DagResolveOutput } from './output.js'

/** cmdenv.CidEncoderFromPath: the base of the CID in the path (CIDv1: that base, upgrading; CIDv0: the default). */
export function encoderFromPath (p: string): CidEncoder | undefined {
  const components = p.split('/')
  let maybeCid: string
  if (components[0] !== '') maybeCid = components[0]
  else if (components.length < 3) return undefined
  else maybeCid = components[2]
  let cid: CID
  try { cid = decodeGoCid(maybeCid) } catch { return undefined }
  if (cid.version === 0) return createCidEncoder({})
  const base = multibase(maybeCid[0])
  if (base == null) return undefined
  return { encode: (c) => (c.version === 0 ? c.toV1() : c).toString(base.encoder) }
}

export const dagResolve = defineCommand({
  path: ['dag', 'resolve'],
  description: 'Resolve IPLD block.',
  help: "'ipfs dag resolve' fetches a DAG node from IPFS, prints its address and remaining path.",
  args: [{ name: 'ref', kind: 'string', required: true, stdin: true, description: 'The path to resolve' }],
  output: 'single',
  async run ({ args, deps, signal }): Promise<DagResolveOutput> {
    const resolved = await resolverOf(deps).resolve(args[0], { signal })
    return { Cid: cidLink(resolved.cid), RemPath: resolved.remainder.join('/') }
  },
  text: (out, { args, options }) => {
    const enc = (options.cidBase == null || options.cidBase === '' ? encoderFromPath(args[0] ?? '') : undefined) ?? textCidEncoder(options)
    let p = enc.encode(CID.parse(out.Cid['/']))
    if (out.RemPath !== '') p = goPathClean(p + '/' + out.RemPath)
    return p
  }
})
