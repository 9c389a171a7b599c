// Extra GC roots (Kubo's best-effort roots: the MFS root, extra MFS roots). Any service may add a
// provider; GC calls every provider once per run, after it has taken the GC lock exclusively,
// so a provider must not wait for the GC lock itself.
import type { CID } from 'multiformats/cid'
import type { AbortOptions } from '@libp2p/interface'

export type RootsProvider = (options: AbortOptions) => Promise<CID[]> | CID[]

export interface GcRoots {
  /** register a provider under a name (replaces one of the same name); returns a remover */
  add: (name: string, provider: RootsProvider) => () => void
  /** every provider's roots; a failing provider fails the GC run (as Kubo's FilesRoot) */
  collect: (options?: AbortOptions) => Promise<CID[]>
  names: () => string[]
}

export function createGcRoots (): GcRoots {
  const providers = new Map<string, RootsProvider>()
  return {
    add (name, provider) {
      providers.set(name, provider)
      return () => { if (providers.get(name) === provider) providers.delete(name) }
    },
    async collect (options = {}) {
      const out: CID[] = []
      for (const provider of providers.values()) out.push(...await provider(options))
      return out
    },
    names: () => [...providers.keys()]
  }
}
