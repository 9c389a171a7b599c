// Shared by the block commands: argument → CID (Kubo cmdutils.PathOrCidPath + api.ResolvePath).
import type { CID } from 'multiformats/cid'
import type { RequestCradle } from '../../core/cradle.js'
import { RpcError } from '../../core/errors.js'
import { parsePath } from '../../core/resolver/path.js'

/** What we need of deps.resolver (core/resolver, registered by the path-resolution work). */
interface PathResolver {
  resolve: (path: string, options?: { signal?: AbortSignal }) => Promise<{ cid: CID }>
}

function resolverOf (deps: RequestCradle): PathResolver | undefined {
  try {
    const r = (deps as unknown as { resolver?: PathResolver }).resolver
    return typeof r?.resolve === 'function' ? r : undefined
  } catch {
    return undefined // not registered (strict awilix throws)
  }
}

/**
 * The block an argument names: a CID, /ipfs/<cid>, ipfs://<cid>, or a path below one (resolved;
 * the command then works on the last node reached, as Kubo's rp.RootCid()).
 */
export async function blockCid (arg: string, deps: RequestCradle, signal?: AbortSignal): Promise<CID> {
  const p = parsePath(arg)
  if (p.cid != null && p.segments.length === 0) return p.cid
  const resolver = resolverOf(deps)
  if (resolver == null) throw new RpcError(`cannot resolve ${p.text}: no path resolver`)
  return (await resolver.resolve(p.text, { signal })).cid
}
