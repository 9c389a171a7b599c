// ipfs repo verify (kubo core/commands/repo.go repoVerifyCmd): read every stored block and rehash it.
// Streams {"Msg":"","Progress":N} after each block, {"Msg":"block … was corrupt (…)"} before the
// progress row of a corrupt one, then a summary; --drop removes corrupt blocks, --heal also fetches
// them again (online only). Without --drop, or when a removal/heal failed, the summary is the error.
import type { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import { NotOnlineError, RpcError, errorMessage } from '../../core/errors.js'
import { hashByCode } from '../../core/hashes.js'
import { parseGoDuration } from '../../core/config/units.js'
import { FlatfsBlockstore, getBlock, isNotFound, storageNotFound } from '../../core/blockstore/index.js'
import { listKeys, storageOf } from '../../core/gc/index.js'
import { mapOrdered } from '../../core/resolver/concurrency.js'
import type { VerifyProgress } from './output.js'

type State = 'valid' | 'corrupt' | 'removed' | 'removeFailed' | 'healed' | 'healFailed'

/** boxo ErrHashMismatch */
const HASH_MISMATCH = 'block in storage has different hash than requested'

export const repoVerify = defineCommand({
  path: ['repo', 'verify'],
  description: 'Verify all blocks in repo are not corrupted.',
  help: `'ipfs repo verify' checks integrity of all blocks in the local datastore.
Each block is read and validated against its CID to ensure data integrity.

Without any flags, this is a SAFE, read-only check that only reports corrupt
blocks without modifying the repository. This can be used as a "dry run" to
preview what --drop or --heal would do.

Use --drop to remove corrupt blocks, or --heal to remove and re-fetch from
the network.`,
  options: {
    drop: { type: 'bool', description: 'Remove corrupt blocks from datastore (destructive operation).' },
    heal: { type: 'bool', description: 'Remove corrupt blocks and re-fetch from network (destructive operation, implies --drop).' },
    'heal-timeout': { type: 'string', default: '30s', description: 'Maximum time to wait for each block heal (e.g., "30s"). Only applies with --heal.' }
  },
  output: 'ndjson',
  async * run ({ options, deps, signal }): AsyncGenerator<VerifyProgress> {
    const heal = options.heal === true
    const drop = heal || options.drop === true
    let timeoutNs: bigint
    try {
      timeoutNs = parseGoDuration(options.healTimeout)
    } catch (err) {
      throw new RpcError(`invalid heal-timeout: ${errorMessage(err)}`)
    }
    if (timeoutNs < 0n) throw new RpcError('heal-timeout must be >= 0')
    const healTimeout = timeoutNs === 0n ? 0 : Math.max(1, Number(timeoutNs / 1_000_000n))
    if (heal && !deps.node.online) throw new NotOnlineError()

    const storage = storageOf(deps.blockstore)
    /**
     * flatfs: read in place (a thread-pool round trip per open/stat/read/close costs more than the read); a block
     * still in the group-commit log from there (its file may be being written at its name)
     */
    const read = storage instanceof FlatfsBlockstore
      ? async (k: CID): Promise<Uint8Array> => {
        try {
          return await storage.read(k)
        } catch (err) {
          if (isNotFound(err)) throw storageNotFound(k)
          throw err
        }
      }
      : async (k: CID): Promise<Uint8Array> => {
        try {
          return await getBlock(storage, k, { signal })
        } catch (err) {
          if (isNotFound(err)) throw storageNotFound(k)
          throw err
        }
      }
    let reads = 0
    /** ValidatingBlockstore.Get: the block must hash to its CID */
    const check = async (k: CID): Promise<void> => {
      if (++reads % 64 === 0) await new Promise(resolve => setImmediate(resolve))
      const bytes = await read(k)
      const hasher = hashByCode(k.multihash.code)
      if (hasher == null) throw new Error('no such hash registered')
      if (Buffer.compare(hasher.digest(bytes, k.multihash.size).bytes, k.multihash.bytes) !== 0) throw new Error(HASH_MISMATCH)
    }
    const verifyOne = async (k: CID): Promise<{ state: State, msg: string }> => {
      try {
        await check(k)
        return { state: 'valid', msg: '' }
      } catch (e) {
        signal.throwIfAborted()
        const err = errorMessage(e)
        if (!drop) return { state: 'corrupt', msg: `block ${k.toString()} was corrupt (${err})` }
        try {
          await storage.delete(k, { signal })
        } catch (delErr) {
          return { state: 'removeFailed', msg: `block ${k.toString()} was corrupt (${err}), failed to remove (${errorMessage(delErr)})` }
        }
        if (!heal) return { state: 'removed', msg: `block ${k.toString()} was corrupt (${err}), removed` }
        try {
          const healSignal = healTimeout > 0 ? AbortSignal.any([signal, AbortSignal.timeout(healTimeout)]) : signal
          const bytes = await getBlock(deps.blockstore, k, { signal: healSignal })
          if (!await storage.has(k)) await storage.put(k, bytes)
          return { state: 'healed', msg: `block ${k.toString()} was corrupt (${err}), removed, healed` }
        } catch (healErr) {
          return { state: 'healFailed', msg: `block ${k.toString()} was corrupt (${err}), removed, failed to heal (${errorMessage(healErr)})` }
        }
      }
    }

    const counts = { corrupt: 0, removed: 0, removeFailed: 0, healed: 0, healFailed: 0 }
    // hold off garbage collection: a block it removes meanwhile would read as corrupt
    const release = await deps.gcLock.shared()
    try {
      let i = 0
      for await (const r of mapOrdered(listKeys(storage, { signal }), verifyOne, 16)) {
        if (r.state !== 'valid') {
          counts.corrupt++
          if (r.state === 'removed' || r.state === 'healed' || r.state === 'healFailed') counts.removed++
          if (r.state === 'removeFailed') counts.removeFailed++
          if (r.state === 'healed') counts.healed++
          if (r.state === 'healFailed') counts.healFailed++
          if (r.msg !== '') yield { Msg: r.msg, Progress: 0 }
        }
        yield { Msg: '', Progress: ++i }
      }
    } finally {
      release()
    }
    signal.throwIfAborted()

    if (counts.corrupt === 0) {
      yield { Msg: 'verify complete, all blocks validated.', Progress: 0 }
      return
    }
    let summary = `verify complete, ${counts.corrupt} blocks corrupt`
    if (counts.removed > 0) summary += `, ${counts.removed} removed`
    if (counts.removeFailed > 0) summary += `, ${counts.removeFailed} failed to remove`
    if (counts.healed > 0) summary += `, ${counts.healed} healed`
    if (counts.healFailed > 0) summary += `, ${counts.healFailed} failed to heal`
    const fail = !drop || counts.removeFailed > 0 || (heal && counts.healFailed > 0)
    if (fail) throw new RpcError(summary)
    yield { Msg: summary, Progress: 0 }
  },
  text: (obj) => {
    if (obj.Msg.includes('was corrupt')) return obj.Msg + '\n'
    if (obj.Msg !== '') return (obj.Msg.length < 20 ? obj.Msg + '             ' : obj.Msg) + '\n'
    return `${obj.Progress} blocks processed.\r`
  }
})
