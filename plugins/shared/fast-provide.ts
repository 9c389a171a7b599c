// Kubo's fast-provide (cmdenv.ExecuteFastProvideRoot / ExecuteFastProvideDAG) for add, dag import,
// pin add and pin update: right after the command stored its content, announce the root (or, with
// --fast-provide-dag, every block the strategy covers) at once instead of waiting for the queue.
// --fast-provide-wait makes the command wait (and fail with `fast-provide: <err>`); otherwise the
// announcement runs in the background. Skipped when Provide.Enabled=false, without a DHT, or when
// Provide.Strategy does not cover the content.
import type { CID } from 'multiformats/cid'
import { RpcError } from '../../core/errors.js'
import type { RequestCradle } from '../../core/cradle.js'
import { shouldProvide, STRATEGY_MFS, STRATEGY_PINNED } from '../../core/provider/index.js'
import { CidSet, walkDag } from '../../core/pins/walk.js'

export interface FastProvideFlags {
  fastProvideRoot?: boolean
  fastProvideDag?: boolean
  fastProvideWait?: boolean
}

/** what the content is to Provide.Strategy */
export interface FastProvideContent { pinned?: boolean, pinnedRoot?: boolean, mfs?: boolean }

/** config.ResolveBoolFromConfig: the flag when given, else Import.<key>, else the default */
function resolve (deps: RequestCradle, flag: boolean | undefined, key: string, dflt: boolean): boolean {
  if (flag !== undefined) return flag
  const v = deps.config.getKey(`Import.${key}`)
  return typeof v === 'boolean' ? v : dflt
}

export async function fastProvide (deps: RequestCradle, roots: CID[], flags: FastProvideFlags, content: FastProvideContent, signal?: AbortSignal): Promise<void> {
  const provider = deps.provider
  if (roots.length === 0 || provider == null || !provider.enabled) return
  if (deps.routing == null || deps.routing.dhts().length === 0) return
  const root = resolve(deps, flags.fastProvideRoot, 'FastProvideRoot', true)
  const dag = resolve(deps, flags.fastProvideDag, 'FastProvideDAG', false)
  const wait = resolve(deps, flags.fastProvideWait, 'FastProvideWait', false)
  let work: (() => Promise<void>) | undefined
  if (dag) {
    // only strategies that walk DAGs (pinned, mfs); the walk includes the root
    if ((provider.strategy & (STRATEGY_PINNED | STRATEGY_MFS)) === 0 && (provider.strategy & 1) === 0) return
    work = async () => {
      const seen = new CidSet()
      const all: CID[] = []
      for (const r of roots) await walkDag(deps.blockstore, r, { signal: wait ? signal : undefined, visit: (c) => { if (!seen.visit(c)) return false; all.push(c); return true } })
      provider.enqueue(all)
    }
  } else if (root) {
    if (!shouldProvide(provider.strategy, content)) return
    work = async () => { for (const r of roots) await provider.provideNow(r, { signal: wait ? signal : AbortSignal.timeout(10 * 60_000) }) }
  }
  if (work == null) return
  if (!wait) {
    work().catch(() => {})
    return
  }
  try {
    await work()
  } catch (err) {
    throw new RpcError(`fast-provide: ${(err as Error).message}`)
  }
}
