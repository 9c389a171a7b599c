// Repos written before the peer store moved to memory (core/libp2p/peerstore-memory.ts) still hold libp2p's
// /peers/<id> entries in their LevelDB datastore, never read again: they are removed once, when the datastore
// opens. A prefix query with limit 1 (one range seek) finds whether any is left, so later opens cost nothing.
import type { Datastore, Key } from 'interface-datastore'

const PEERS_PREFIX = '/peers/'
const BATCH = 1000

/** remove every /peers/… key from the datastore; returns how many were removed */
export async function dropStalePeers (datastore: Datastore): Promise<number> {
  let any = false
  for await (const _ of datastore.queryKeys({ prefix: PEERS_PREFIX, limit: 1 })) any = true
  if (!any) return 0
  let removed = 0
  let keys: Key[] = []
  const flush = async (): Promise<void> => {
    const batch = datastore.batch()
    for (const key of keys) batch.delete(key)
    await batch.commit()
    removed += keys.length
    keys = []
  }
  for await (const key of datastore.queryKeys({ prefix: PEERS_PREFIX })) {
    keys.push(key)
    if (keys.length >= BATCH) await flush()
  }
  if (keys.length > 0) await flush()
  return removed
}

