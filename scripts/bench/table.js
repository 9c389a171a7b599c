// The bench's one table (issue 15): every daemon of the run side by side, the machine limits measured in
// the same run beside them, and the issue's targets as ratios to those limits.
import fs from 'node:fs'

/** The figures of one rpc-bench.sh result file. */
export function parse (file) {
  if (!fs.existsSync(file)) return undefined
  const text = fs.readFileSync(file, 'utf8')
  const stat = (label) => {
    const line = text.split('\n').find(l => l.startsWith(label + ' '))
    if (line == null) return undefined
    const m = /median=([\d.]+) min=([\d.]+) max=([\d.]+) n=(\d+) spread=([\d.]+)%/.exec(line)
    return m == null ? undefined : { median: +m[1], min: +m[2], max: +m[3], n: +m[4], spread: +m[5] }
  }
  const list = (label) => text.split('\n').find(l => l.startsWith(label + ' '))?.split(':').slice(1).join(':').trim().split(/\s+/).filter(Boolean) ?? []
  const blockput = text.split('\n').filter(l => l.startsWith('{"bench":"block/put"')).map(l => JSON.parse(l))
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length === 0 ? undefined : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2 }
  const rssLine = text.split('\n').find(l => l.startsWith('daemon-rss after all'))
  return {
    addDefault: stat('add-256MiB-default MiB/s:'),
    addV1raw: stat('add-256MiB-v1raw MiB/s:'),
    cat: stat('cat-256MiB MiB/s:'),
    dir: stat('add-dir-10000x1KiB files/s:'),
    blockput: stat('block-put-1KiB-c4 ops/s:'),
    blockputP50: median(blockput.map(j => j.p50ms)),
    blockputP99: median(blockput.map(j => j.p99ms)),
    blockputErrors: blockput.reduce((a, j) => a + (j.errors ?? 0), 0),
    gw: stat('gateway-1KiB-c32 req/s:'),
    gwP99: stat('gateway-1KiB-c32 p99 ms:'),
    gwUncached: stat('gateway-1KiB-uncached-c32 req/s:'),
    gwUncachedP99: stat('gateway-1KiB-uncached-c32 p99 ms:'),
    gwLarge: stat('gateway-1MiB-c32 req/s:'),
    gwLargeP99: stat('gateway-1MiB-c32 p99 ms:'),
    gwLargeMiBs: stat('gateway-1MiB-c32 MiB/s:'),
    rss: rssLine != null ? Number(/VmRSS:\s*(\d+)/.exec(rssLine)?.[1]) : undefined,
    hwm: rssLine != null ? Number(/VmHWM:\s*(\d+)/.exec(rssLine)?.[1]) : undefined,
    rssStart: Number(/daemon-rss at start: (\d+)/.exec(text)?.[1]) || undefined,
    rssIdle: Number(/daemon-rss idle 2 s after the run: (\d+)/.exec(text)?.[1]) || undefined,
    cids: { default: list('add-256MiB-default cids:'), v1raw: list('add-256MiB-v1raw cids:'), dir: list('add-dir-10000x1KiB dir cids:') },
    load: [...text.matchAll(/load: ([\d. ]+)/g)].map(m => m[1].trim())
  }
}

/** The limits physical.sh wrote (SHA-256, disk write+fsync into fresh space, loopback HTTP, trivial Node server). */
export function parsePhysical (file) {
  if (!fs.existsSync(file)) return {}
  const text = fs.readFileSync(file, 'utf8')
  const med = (label) => Number(new RegExp(label.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') + '.*median=([\\d.]+)').exec(text)?.[1]) || undefined
  const json = (bench) => { const l = text.split('\n').find(x => x.includes(`"bench":"${bench}`)); return l != null ? JSON.parse(l) : undefined }
  return {
    sha256: json('sha256-256KiB')?.median,
    disk: med('disk write+fsync 1GiB fresh-space MiB/s:'),
    loopback: json('http-loopback')?.curlMedian,
    smallServer: med('http-small-1KiB-c32 req/s:')
  }
}

const fmt = (s, digits = 0) => s == null ? '—' : `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`
const num = (x, digits = 0) => x == null || Number.isNaN(x) ? '—' : x.toFixed(digits)
const medianOf = (xs) => { const s = (xs ?? []).filter(x => x != null).sort((a, b) => a - b); return s.length === 0 ? undefined : s[Math.floor(s.length / 2)] }

/** The columns, in this order, for the daemons the run measured. */
export const COLUMNS = [
  ['tsipfs', 'tsipfs (sync: true)'],
  ['tsipfs-nosync', 'tsipfs (sync: false)'],
  ['kubo', 'Kubo 0.40.1 (sync: false, its init)'],
  ['kubo-sync', 'Kubo (sync: true)'],
  ['jsipfs', 'js-ipfs 0.66.1'],
  ['baseline', 'baseline']
]

/**
 * @param {Record<string, ReturnType<typeof parse>>} by daemon name
 * @param {{ sha256?: number, disk?: number, loopback?: number, smallServer?: number, naivePut?: number[], files256k?: number[], readSend?: number[] }} L limits
 */
export function table (by, L) {
  const cols = COLUMNS.filter(([k]) => by[k] != null)
  const ts = by.tsipfs; const tsn = by['tsipfs-nosync']
  const files = medianOf(L.files256k); const put = medianOf(L.naivePut); const readSend = medianOf(L.readSend)
  const ratio = (x, lim) => x != null && lim != null ? (x / lim).toFixed(2) : '—'
  const yes = (c) => c == null ? '' : c ? 'yes' : 'NO'
  const addRow = (label, key) => ({
    label, unit: 'MiB/s', key, digits: 1,
    limit: `durable 256 KiB files ${num(files, 0)}; disk dd+fsync ${num(L.disk, 0)}; SHA-256 ${num(L.sha256, 0)}`,
    target: `≥ 0.85 × files (${ratio(ts?.[key]?.median, files)}); ≥ 340 durable, ≥ 600 sync:false`,
    met: ts?.[key] == null ? undefined : ts[key].median >= 0.85 * (files ?? Infinity) && ts[key].median >= 340 && (tsn?.[key] == null || tsn[key].median >= 600)
  })
  const rows = [
    addRow('add 256 MiB, defaults', 'addDefault'),
    addRow('add 256 MiB, CIDv1 raw leaves', 'addV1raw'),
    { label: 'cat 256 MiB', unit: 'MiB/s', key: 'cat', limit: `loopback HTTP (curl) ${num(L.loopback, 0)}; 1,024 block files read+sent ${num(readSend, 0)}`, target: `≥ 0.7 × loopback (${ratio(ts?.cat?.median, L.loopback)}); ≥ 4,000`, met: ts?.cat == null ? undefined : ts.cat.median >= 0.7 * (L.loopback ?? Infinity) },
    { label: 'add 10,000 × 1 KiB files, one request', unit: 'files/s', key: 'dir', limit: '', target: '≥ 15,000', met: ts?.dir == null ? undefined : ts.dir.median >= 15000 },
    { label: 'block/put 1 KiB, 4 in flight', unit: 'ops/s', key: 'blockput', limit: `naive durable put ${num(put, 0)}`, target: `≥ 2 × naive (${ratio(ts?.blockput?.median, put)})`, met: ts?.blockput == null ? undefined : ts.blockput.median >= 2 * (put ?? Infinity) },
    { label: 'block/put p50 / p99', unit: 'ms', cell: (r) => r ? `${num(r.blockputP50, 2)} / ${num(r.blockputP99, 2)}` : '—', limit: '', target: '' },
    { label: 'gateway GET 1 KiB, 32 connections', unit: 'req/s', key: 'gw', limit: `trivial Node server ${num(L.smallServer, 0)}`, target: '', met: undefined },
    { label: 'gateway 1 KiB p99', unit: 'ms', key: 'gwP99', digits: 2, limit: '', target: '' },
    { label: 'gateway 1 KiB, response cache bypassed', unit: 'req/s', key: 'gwUncached', limit: `trivial Node server ${num(L.smallServer, 0)}`, target: '≥ 30,000', met: ts?.gwUncached == null ? undefined : ts.gwUncached.median >= 30000 },
    { label: 'gateway 1 KiB bypassed p99', unit: 'ms', key: 'gwUncachedP99', digits: 2, limit: '', target: '< 5', met: ts?.gwUncachedP99 == null ? undefined : ts.gwUncachedP99.median < 5 },
    { label: 'gateway GET 1 MiB, 32 connections', unit: 'MiB/s', key: 'gwLargeMiBs', limit: '', target: '' },
    { label: 'daemon RSS after the run', unit: 'MiB', cell: (r) => num(r?.rss, 0), limit: '', target: '≤ 150 (sync: true daemon)', met: ts?.rss == null ? undefined : ts.rss <= 150 },
    { label: 'daemon RSS idle 2 s after the run (and the extra gateway runs)', unit: 'MiB', cell: (r) => num(r?.rssIdle, 0), limit: '', target: '' },
    { label: 'daemon peak RSS (VmHWM)', unit: 'MiB', cell: (r) => num(r?.hwm, 0), limit: '', target: '' }
  ]
  const head = ['figure (median, min–max of runs)', 'unit', ...cols.map(([, t]) => t), 'machine limit (same run)', 'target (ratio now)', 'met']
  const cells = rows.map(r => [r.label, r.unit, ...cols.map(([k]) => r.cell != null ? r.cell(by[k]) : fmt(by[k]?.[r.key], r.digits ?? 0)), r.limit, r.target, yes(r.met)])
  const width = head.map((h, i) => Math.max(h.length, ...cells.map(c => String(c[i]).length)))
  const line = (c) => '| ' + c.map((x, i) => String(x).padEnd(width[i])).join(' | ') + ' |'
  return [line(head), '|' + width.map(w => '-'.repeat(w + 2)).join('|') + '|', ...cells.map(line)].join('\n')
}

/** The CIDs both daemons computed for the same data must be the same (js-ipfs prints CIDv1 in base58btc). */
export async function cidCheck (ours, js) {
  const lines = []
  if (ours == null) return lines
  let CID
  try { ({ CID } = await import('multiformats/cid')) } catch {}
  const norm = (s) => { try { return CID != null ? CID.parse(s).toV1().toString() : s } catch { return s } }
  for (const mode of ['default', 'v1raw']) {
    const a = ours.cids[mode]
    const b = js?.cids[mode] ?? []
    if (b.length === 0) { lines.push(`add ${mode} cids: ${a.join(' ')}`); continue }
    const same = a.length === b.length && a.every((c, i) => norm(c) === norm(b[i]))
    lines.push(`add ${mode} cids ${same ? 'match js-ipfs' : 'DIFFER from js-ipfs'}: ${a.join(' ')}${same ? '' : ` vs ${b.join(' ')}`}`)
  }
  if (ours.cids.dir.length > 0) lines.push(`dir cids (Kubo HAMT layout; js-ipfs makes a flat dir): ${ours.cids.dir.join(' ')}`)
  return lines
}

