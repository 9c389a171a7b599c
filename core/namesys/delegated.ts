// Ipns.DelegatedPublishers: PUT /routing/v1/ipns/{name} on each configured HTTP router (IPIP-0379).
import type { Logger } from '../logger/index.js'
import type { KuboConfig } from '../config/index.js'

/** Ipns.DelegatedPublishers as URLs ("auto" means the AutoConf list: none here). */
export function delegatedPublisherUrls (cfg: KuboConfig): string[] {
  const v = ((cfg.Ipns ?? {}) as { DelegatedPublishers?: unknown }).DelegatedPublishers
  return Array.isArray(v) ? v.filter((u): u is string => typeof u === 'string' && /^https?:\/\//.test(u)) : []
}

export async function putDelegated (urls: string[], name: string, record: Uint8Array, signal: AbortSignal | undefined, log: Logger): Promise<void> {
  await Promise.all(urls.map(async (base) => {
    const url = `${base.replace(/\/+$/, '')}/routing/v1/ipns/${name}`
    try {
      const res = await fetch(url, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/vnd.ipfs.ipns-record' },
        body: Buffer.from(record),
        signal: AbortSignal.any([AbortSignal.timeout(30_000), ...(signal != null ? [signal] : [])])
      })
      if (!res.ok) log.warn(`delegated publish to ${base}: HTTP ${res.status}`)
      await res.body?.cancel()
    } catch (err) {
      log.warn(`delegated publish to ${base}: ${(err as Error).message}`)
    }
  }))
}
