// ipfs dag stat (kubo core/commands/dag/stat.go): size and block count of each DAG (each block once
// per root), plus totals across roots. Streams a summary after every block unless --progress=false.
import type { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { getBlock } from '../../core/blockstore/index.js'
import { CidSet } from '../../core/pins/walk.js'
import { asRpcError, resolverOf } from './common.js'
import { blockLinks } from './ipld/codecs.js'
import type { DagStat, DagStatSummary } from './output.js'
import type { CliIO, TextCall } from '../../registry/types.js'
import type { Outcome } from '../../registry/execute.js'

/** go-humanize Bytes: SI units, one decimal below 10. */
export function humanizeBytes (s: number): string {
  if (s < 10) return `${s} B`
  const sizes = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB']
  const e = Math.floor(Math.log(s) / Math.log(1000))
  const val = Math.floor(s / 1000 ** e * 10 + 0.5) / 10
  return `${val < 10 ? val.toFixed(1) : goFixed0(val)} ${sizes[e]}`
}

/** fmt %.0f: round half to even. */
function goFixed0 (x: number): string {
  const f = Math.floor(x)
  const d = x - f
  if (d === 0.5) return String(f % 2 === 0 ? f : f + 1)
  return x.toFixed(0)
}

/** Go's encoding of a float32 (shortest text that reads back as the same float32). */
export function float32Value (x: number): number {
  const f = Math.fround(x)
  if (!Number.isFinite(f)) return f
  for (let p = 1; p <= 9; p++) {
    const v = Number(f.toPrecision(p))
    if (Math.fround(v) === f) return v
  }
  return f
}

interface State { unique: number, total: number, redundant: number, stats: Array<{ Cid: string, Size: number, NumBlocks: number }> }

function snapshot (s: State, final: boolean): DagStatSummary {
  const out: DagStatSummary = {}
  if (final && s.unique !== 0) out.UniqueBlocks = s.unique
  if (s.total !== 0) out.TotalSize = s.total
  if (final) {
    const shared = s.redundant - s.total
    if (shared !== 0) out.SharedSize = shared
    const ratio = float32Value(Math.fround(s.redundant) / Math.fround(s.total)) // float32 arithmetic
    if (Number.isNaN(ratio)) throw new RpcError('json: unsupported value: NaN')
    if (ratio !== 0) out.Ratio = ratio
  }
  if (s.stats.length > 0) {
    out.DagStats = s.stats.map(d => {
      const row: DagStat = { Cid: d.Cid }
      if (d.Size !== 0) row.Size = d.Size
      if (d.NumBlocks !== 0) row.NumBlocks = d.NumBlocks
      return row
    })
  }
  return out
}

/** The text form of one summary (Kubo's Text encoder: a tab-separated table, then the totals). */
function statText (s: DagStatSummary): string {
  const rows = s.DagStats ?? []
  const width = rows[0]?.Cid.length ?? 0
  let out = '\n'
  out += `${'CID'.padEnd(width)}\t${'Blocks'.padEnd(15)}\tSize\n`
  for (const r of rows) out += `${r.Cid}\t${String(r.NumBlocks ?? 0).padEnd(15)}\t${r.Size ?? 0}\n`
  const total = s.TotalSize ?? 0
  const shared = s.SharedSize ?? 0
  out += '\nSummary\n'
  out += `Total Size: ${total} (${humanizeBytes(total)})\nUnique Blocks: ${s.UniqueBlocks ?? 0}\nShared Size: ${shared} (${humanizeBytes(shared)})\nRatio: ${Math.fround(s.Ratio ?? 0).toFixed(6)}\n`
  return out + '\n\n'
}

export const dagStat = defineCommand({
  path: ['dag', 'stat'],
  description: 'Gets stats for a DAG.',
  help: "'ipfs dag stat' fetches a DAG and returns various statistics about it.\nStatistics include size and number of blocks.\n\nNote: This command skips duplicate blocks in reporting both size and the number of blocks",
  args: [{ name: 'root', kind: 'string', required: true, variadic: true, stdin: true, description: 'CID of a DAG root to get statistics for' }],
  options: {
    progress: { type: 'bool', aliases: ['p'], description: 'Stream progress data. Defaults to true when stderr is a terminal.' }
  },
  output: 'ndjson',
  async * run ({ args, options, deps, signal }): AsyncGenerator<DagStatSummary> {
    // HTTP clients get progress rows unless they opt out
    const progressive = options.progress ?? true
    const resolver = resolverOf(deps)
    const enc = deps.cidEncoder
    // dedup across roots only matters with several roots
    const seenAll = args.length > 1 ? new CidSet() : undefined
    const state: State = { unique: 0, total: 0, redundant: 0, stats: [] }
    for (const arg of args) {
      const resolved = await resolver.resolve(arg, { signal })
      if (resolved.remainder.length > 0) throw new RpcError('cannot return size for anything other than a DAG with a root CID')
      const root = resolved.cid
      const rootBytes = await getBlock(deps.blockstore, root, { signal })
      const stat = { Cid: enc.encode(root), Size: 0, NumBlocks: 0 }
      state.stats.push(stat)
      const visited = new CidSet()
      const visit = (cid: CID, size: number): void => {
        stat.Size += size
        stat.NumBlocks++
        if (seenAll == null || seenAll.visit(cid)) state.total += size
        state.redundant += size
      }
      const linksOf = (cid: CID, bytes: Uint8Array): CID[] => {
        try {
          return blockLinks(cid, bytes).map(l => l.cid)
        } catch (err) {
          throw new RpcError(`error traversing DAG: ${(err as Error).message}`)
        }
      }
      // boxo traverse, DFS pre-order with SkipDuplicates (the root itself is not recorded)
      visit(root, rootBytes.length)
      if (progressive) yield snapshot(state, false)
      const stack: Array<{ links: CID[], i: number }> = [{ links: linksOf(root, rootBytes), i: 0 }]
      while (stack.length > 0) {
        const top = stack[stack.length - 1]
        if (top.i >= top.links.length) { stack.pop(); continue }
        const cid = top.links[top.i++]
        let bytes: Uint8Array
        try {
          bytes = await getBlock(deps.blockstore, cid, { signal })
        } catch (err) {
          throw new RpcError(`error traversing DAG: ${(err as Error).message}`)
        }
        if (!visited.visit(cid)) continue
        visit(cid, bytes.length)
        if (progressive) yield snapshot(state, false)
        stack.push({ links: linksOf(cid, bytes), i: 0 })
      }
    }
    state.unique = seenAll != null ? seenAll.size : state.stats.reduce((n, s) => n + s.NumBlocks, 0)
    try {
      yield snapshot(state, true)
    } catch (err) {
      throw asRpcError(err)
    }
  },
  text: (out) => statText(out),
  // Kubo's PostRun: progress on stderr (when asked, or stderr is a terminal), then only the final summary
  cliRender: async (outcome: Outcome, call: TextCall<{ progress?: boolean }>, io: CliIO) => {
    const show = call.options.progress ?? io.isTTY
    let last: DagStatSummary | undefined
    const items = outcome.kind === 'ndjson' ? outcome.items : (async function * () { if (outcome.kind === 'single') yield outcome.value })()
    for await (const v of items) {
      last = v as DagStatSummary
      if (show && last.Ratio === undefined) {
        let blocks = 0
        let size = 0
        for (const s of last.DagStats ?? []) { blocks += s.NumBlocks ?? 0; size += s.Size ?? 0 }
        io.stderr.write(`Fetched/Processed ${blocks} blocks, ${size} bytes (${humanizeBytes(size)})\r`)
      }
    }
    if (show) io.stderr.write('\u001b[2K\r')
    if (last !== undefined) io.stdout.write(statText(last))
  }
})
