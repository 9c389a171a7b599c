// Fuzz targets on the RPC API: every parser that reads outside bytes (multipart, CAR, dag-json/dag-cbor,
// dag-pb/UnixFS, CIDs, multiaddrs, paths, query strings, config JSON).
import fc from 'fast-check'
import * as dagPb from '@ipld/dag-pb'
import { UnixFS } from 'ipfs-unixfs'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { carSection, carV1Header } from '../../plugins/dag/car.js'
import { gatewayOutcome, HANG_MS, multipartBody, rpcOutcome, send, target, violation, type FuzzContext, type Outcome, type Req } from './harness.js'

const B = 'fuzzbound'
const mpHeaders = (b = B): Record<string, string> => ({ 'Content-Type': `multipart/form-data; boundary=${b}` })
/** one file part holding `content` */
const filePart = (content: Buffer, name = 'file'): Buffer => multipartBody(B, [{ headers: [`Content-Disposition: form-data; name="${name}"; filename="${name}"`, 'Content-Type: application/octet-stream'], content }])

async function post (ctx: FuzzContext, path: string, body?: Buffer | Buffer[], headers?: Record<string, string>, timeoutMs?: number): Promise<Outcome> {
  const req: Req = { path, body, headers: body == null ? headers : { ...mpHeaders(), ...headers } }
  return rpcOutcome(req, await send(ctx.rpc, req, timeoutMs))
}

const q = encodeURIComponent
const bytes = (max = 256): fc.Arbitrary<Buffer> => fc.uint8Array({ maxLength: max }).map(u => Buffer.from(u))

// ---- multipart ----

/** file names a hostile client sends: traversal, absolute, escaped, odd bytes */
const hostileName = fc.oneof(
  fc.constantFrom('..', '../x', '../../etc/passwd', '/abs', '/', '//x', 'a/../../b', '%2e%2e%2fx', 'a%2Fb', '.', './x', 'a//b', '', '%', '%zz', 'x%00y', 'd/', '\u00e9t\u00e9', 'a\\b'),
  fc.string({ maxLength: 40 }).map(s => s.replace(/["\r\n]/g, '')),
  fc.array(fc.constantFrom('a', '..', '.', '', 'b%20c', 'ü'), { maxLength: 6 }).map(s => s.join('/'))
)
const partType = fc.constantFrom('application/octet-stream', 'application/x-directory', 'application/symlink', 'text/plain', '', 'multipart/mixed')
const part = fc.record({
  name: fc.constantFrom('file', 'dir', 'file-1', '', 'x"y'),
  filename: fc.option(hostileName),
  type: fc.option(partType),
  /** no headers at all (Go's reader takes a header-less part) */
  bare: fc.boolean(),
  extra: fc.array(fc.oneof(
    fc.constantFrom('abspath: /etc/passwd', 'abspath-encoded: %2Fetc', 'Content-Disposition: form-data', 'X: ' + 'y'.repeat(20_000), ': novalue', 'nocolon', 'Content-Type: application/x-directory'),
    fc.tuple(fc.stringMatching(/^[A-Za-z-]{1,12}$/), fc.string({ maxLength: 30 })).map(([k, v]) => `${k}: ${v.replace(/[\r\n]/g, '')}`)
  ), { maxLength: 3 }),
  content: bytes(2048)
})

export const multipartAdd = target({
  name: 'multipart',
  about: 'add with hostile multipart bodies: boundaries, truncation, bare LF, header-less parts, huge part headers, .. and absolute names, odd types',
  arb: fc.record({
    boundary: fc.oneof(fc.constant(B), fc.stringMatching(/^[0-9A-Za-z'()+_,./:=?-]{1,70}$/), fc.constantFrom('', '"quoted"', 'a b', 'x;y', '-'.repeat(200))),
    parts: fc.array(part, { maxLength: 5 }),
    cut: fc.option(fc.nat()),
    preamble: fc.oneof(fc.constant(''), fc.string({ maxLength: 40 })),
    close: fc.boolean(),
    /** bare LF line endings (Go's reader accepts them) */
    lf: fc.boolean(),
    query: fc.constantFrom('', 'wrap-with-directory=true', 'pin=false&raw-leaves=true', 'only-hash=true', 'recursive=true', 'chunker=size-7')
  }),
  run: async (ctx, { boundary, parts, cut, preamble, close, lf, query }) => {
    const bound = boundary.replace(/^"|"$/g, '')
    let body = Buffer.concat([Buffer.from(preamble), multipartBody(bound, parts.map(p => ({
      headers: p.bare ? [] : [`Content-Disposition: form-data; name="${p.name}"${p.filename != null ? `; filename="${p.filename}"` : ''}`, ...(p.type != null ? [`Content-Type: ${p.type}`] : []), ...p.extra],
      content: p.content
    })), close)])
    if (lf) body = Buffer.from(body.toString('latin1').replaceAll('\r\n', '\n'), 'latin1')
    if (cut != null) body = body.subarray(0, cut % (body.length + 1))
    const req: Req = { path: `/api/v0/add?${query}`, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body }
    const res = await send(ctx.rpc, req)
    const o = rpcOutcome(req, res)
    // no added entry is named outside the upload: no absolute or parent-escaping paths
    if (o === 'ok') {
      for (const row of res.text.split('\n').filter(Boolean).map(l => JSON.parse(l))) {
        if (typeof row.Name === 'string' && (row.Name.startsWith('/') || row.Name.split('/').includes('..'))) throw violation(`add named an entry ${JSON.stringify(row.Name)}`, req, res)
      }
    }
    return o
  },
  runs: 25,
  daemonRuns: 8
})

/** Fixed big cases: 10k parts, a part of 10k headers, a 1 MiB part header. */
export const multipartBig = target({
  name: 'multipart-big',
  about: '10,000 parts; 10,000 headers in one part; a 1 MiB part header',
  arb: fc.constantFrom('parts', 'headers', 'long-header'),
  run: async (ctx, kind) => {
    const d = 'Content-Disposition: form-data; name="file"; filename="f"'
    let body: Buffer
    if (kind === 'parts') body = multipartBody(B, Array.from({ length: 10_000 }, (_, i) => ({ headers: [`Content-Disposition: form-data; name="file"; filename="d/f${i}"`, 'Content-Type: application/octet-stream'], content: Buffer.from(String(i)) })))
    else if (kind === 'headers') body = multipartBody(B, [{ headers: [d, ...Array.from({ length: 10_000 }, (_, i) => `X-H${i}: v`)], content: Buffer.from('x') }])
    else body = multipartBody(B, [{ headers: [d, 'X-Long: ' + 'v'.repeat(1 << 20)], content: Buffer.from('x') }])
    // only-hash: the parser is what is tested; 10k fsynced blocks would only measure the disk
    // 10k parts take seconds on a loaded machine (linear: ~0.6 ms a part): a hang is 4x the usual wait
    return await post(ctx, `/api/v0/add?wrap-with-directory=true&quiet=true${kind === 'parts' ? '&only-hash=true' : ''}`, body, undefined, 4 * HANG_MS)
  },
  runs: 3,
  daemonRuns: 1
})

// ---- CAR v1/v2 through dag/import ----

async function sampleCar (n: number, v2: boolean, lie?: { offset: bigint, size: bigint }): Promise<Buffer> {
  const parts: Uint8Array[] = []
  const cids: CID[] = []
  for (let i = 0; i < n; i++) {
    const b = Buffer.from(`car block ${i}`)
    const cid = CID.createV1(0x55, await sha256.digest(b))
    cids.push(cid)
    parts.push(...carSection(cid, b))
  }
  const v1 = Buffer.concat([carV1Header(cids.slice(0, 1)), ...parts])
  if (!v2) return v1
  const head = Buffer.alloc(40)
  head.writeBigUInt64LE(lie?.offset ?? 51n, 16)
  head.writeBigUInt64LE(lie?.size ?? BigInt(v1.length), 24)
  head.writeBigUInt64LE(0n, 32)
  return Buffer.concat([Buffer.from([0x0a, 0xa1, 0x67, 0x76, 0x65, 0x72, 0x73, 0x69, 0x6f, 0x6e, 0x02]), head, v1])
}

const u64 = fc.oneof(fc.bigInt({ min: 0n, max: 200n }), fc.constantFrom(0xffffffffffffffffn, 1n << 62n, 1n << 31n))
/** a LEB128 varint of a large value: a section or header that lies about its length */
const lyingVarint = fc.constantFrom([0xff, 0xff, 0xff, 0xff, 0x0f], [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], [0xff, 0xff, 0x03], [0x80], [0x00])

export const carImport = target({
  name: 'car',
  about: 'dag/import of CAR v1/v2: truncated, bytes flipped, lying section and header lengths, lying v2 offsets',
  arb: fc.record({
    n: fc.integer({ min: 0, max: 4 }),
    v2: fc.boolean(),
    lie: fc.option(fc.record({ offset: u64, size: u64 })),
    cut: fc.option(fc.nat()),
    flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 3 }),
    varint: fc.option(fc.tuple(fc.nat(), lyingVarint)),
    pin: fc.boolean()
  }),
  run: async (ctx, { n, v2, lie, cut, flips, varint, pin }) => {
    let car = await sampleCar(n, v2, lie ?? undefined)
    for (const [at, v] of flips) car[at % car.length] = v
    if (varint != null) {
      const at = varint[0] % (car.length + 1)
      car = Buffer.concat([car.subarray(0, at), Buffer.from(varint[1]), car.subarray(at)])
    }
    if (cut != null) car = car.subarray(0, cut % (car.length + 1))
    return await post(ctx, `/api/v0/dag/import?pin-roots=${String(pin)}&stats=true`, filePart(car))
  },
  runs: 25,
  daemonRuns: 8
})

// ---- dag-json / dag-cbor ----

const nested = (depth: number, open: string, close: string, inner = '1'): Buffer => Buffer.from(open.repeat(depth) + inner + close.repeat(depth))
/** CBOR arrays of one element nested `depth` deep */
const cborNested = (depth: number): Buffer => Buffer.concat([Buffer.alloc(depth, 0x81), Buffer.from([0x01])])

const codecInput = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map(v => Buffer.from(JSON.stringify(v))),
  fc.constantFrom('{"/":"x"}', '{"/":{"bytes":"!!"}}', '{"/":{"bytes":"aGk"},"x":1}', '{"a":1,"a":2}', '[1,2', '{"/":"bafy"}', '1e400', '-0', '"\\ud800"', '{"\u0000":1}', '').map(s => Buffer.from(s)),
  bytes(300),
  fc.integer({ min: 1, max: 20_000 }).map(d => nested(d, '[', ']')),
  fc.integer({ min: 1, max: 20_000 }).map(d => nested(d, '{"a":', '}')),
  fc.integer({ min: 1, max: 20_000 }).map(cborNested)
)

export const dagCodecs = target({
  name: 'dag-codecs',
  about: 'dag/put and block/put+dag/get of dag-json/dag-cbor/json/cbor input: random JSON, invalid bytes, deep nesting',
  arb: fc.record({
    input: codecInput,
    inputCodec: fc.constantFrom('dag-json', 'dag-cbor', 'json', 'cbor', 'raw', 'dag-pb', 'nope'),
    storeCodec: fc.constantFrom('dag-cbor', 'dag-json', 'json', 'raw', 'dag-pb'),
    viaBlock: fc.boolean()
  }),
  run: async (ctx, { input, inputCodec, storeCodec, viaBlock }) => {
    if (!viaBlock) return await post(ctx, `/api/v0/dag/put?input-codec=${inputCodec}&store-codec=${storeCodec}&pin=false`, filePart(input))
    const req: Req = { path: `/api/v0/block/put?cid-codec=${storeCodec}`, headers: mpHeaders(), body: filePart(input) }
    const res = await send(ctx.rpc, req)
    const o = rpcOutcome(req, res)
    if (o !== 'ok') return o
    const cid = JSON.parse(res.text).Key as string
    await post(ctx, `/api/v0/dag/stat?arg=${cid}&progress=false`)
    await post(ctx, `/api/v0/dag/resolve?arg=${cid}/a/0`)
    await post(ctx, `/api/v0/block/rm?arg=${cid}`) // keep the repo small; a failed rm is fine
    return await post(ctx, `/api/v0/dag/get?arg=${cid}&output-codec=${inputCodec === 'nope' ? 'dag-json' : inputCodec}`)
  },
  runs: 25,
  daemonRuns: 6
})

// ---- dag-pb / UnixFS blocks read by cat, ls, get, refs, files ----

const unixfsData = fc.oneof(
  bytes(64),
  fc.record({
    type: fc.constantFrom('raw', 'directory', 'file', 'metadata', 'symlink', 'hamt-sharded-directory'),
    data: fc.option(bytes(64)),
    blockSizes: fc.array(fc.bigInt({ min: 0n, max: 1n << 40n }), { maxLength: 5 }),
    fanout: fc.option(fc.constantFrom(0n, 1n, 3n, 256n, 1024n, 1n << 40n)),
    hashType: fc.option(fc.constantFrom(0n, 0x22n, 0x12n))
  }).map(u => {
    try {
      return Buffer.from(new UnixFS({ type: u.type as never, data: u.data ?? undefined, blockSizes: u.blockSizes, fanout: u.fanout ?? undefined, hashType: u.hashType ?? undefined }).marshal())
    } catch { return Buffer.from([0x08, 0x02]) }
  })
)

export const dagPbBlocks = target({
  name: 'dag-pb',
  about: 'hostile dag-pb/UnixFS blocks (bad types, lying sizes and fan-outs, odd link names, duplicate links) read by cat/ls/get/refs/files/dag stat',
  arb: fc.record({
    data: fc.option(unixfsData),
    links: fc.array(fc.record({ to: fc.constantFrom('file', 'big', 'dir', 'cbor', 'self'), name: fc.option(fc.constantFrom('a', '', '..', '/', 'a/b', 'a', 'FF', '00x', '\u0000', 'index.html')), size: fc.option(fc.nat()) }), { maxLength: 5 }),
    raw: fc.option(bytes(200)),
    reader: fc.constantFrom('cat', 'ls', 'get', 'refs', 'files/stat', 'dag/stat', 'dag/resolve', 'files/cp'),
    gw: fc.constantFrom('/', '', '?format=tar', '?format=car&dag-scope=all', '/a')
  }),
  run: async (ctx, { data, links, raw, reader, gw }) => {
    const inner = links.filter(l => l.to === 'self').length > 0
      ? JSON.parse((await send(ctx.rpc, { path: '/api/v0/block/put?cid-codec=dag-pb', headers: mpHeaders(), body: filePart(Buffer.from(dagPb.encode({ Links: [] }))) })).text).Key as string
      : ctx.fixtures.file
    const cidOf = (to: string): CID => CID.parse(to === 'self' ? inner : (ctx.fixtures as unknown as Record<string, string>)[to])
    const block = raw != null
      ? raw
      : Buffer.from(dagPb.encode(dagPb.prepare({ Data: data ?? undefined, Links: links.map(l => ({ Hash: cidOf(l.to), Name: l.name ?? undefined, Tsize: l.size ?? undefined })) })))
    const req: Req = { path: '/api/v0/block/put?cid-codec=dag-pb&pin=false', headers: mpHeaders(), body: filePart(block) }
    const res = await send(ctx.rpc, req)
    if (rpcOutcome(req, res) !== 'ok') return 'client'
    const cid = JSON.parse(res.text).Key as string
    const path = reader === 'files/stat' ? `/api/v0/files/stat?arg=/ipfs/${cid}&with-local=true` : reader === 'files/cp' ? `/api/v0/files/cp?arg=/ipfs/${cid}&arg=/fuzz-${cid}` : `/api/v0/${reader}?arg=${cid}`
    const o = await post(ctx, path)
    if (reader === 'files/cp') await post(ctx, `/api/v0/files/rm?arg=/fuzz-${cid}&r=true&force=true`)
    // a file whose Filesize lies is cut short after its headers (as Go's server does), never before
    const greq: Req = { method: 'GET', path: `/ipfs/${cid}${gw}` }
    const g = await send(ctx.gateway, greq)
    if (g.status === 0) throw violation('gateway connection failed', greq, g)
    gatewayOutcome(greq, g, { reset: true })
    return o
  },
  runs: 25,
  daemonRuns: 8
})

// ---- CIDs ----

const cidString = (f: FuzzContext['fixtures'] | undefined, pick: number, edits: Array<[number, string]>, cut: number | null, prefix: string): string => {
  const base = [f?.file ?? 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG', 'bafkqaaa', f?.cbor ?? 'bafyreih', 'zb2rhe5P4gXftAwvA4eXQ5HJwsER2owDyS9sKaQRRVQPn93bA', 'f01551220', 'mAXASIA', 'k51qzi5uqu5d'][pick % 7]
  let s = base
  for (const [at, c] of edits) { const i = at % (s.length + 1); s = s.slice(0, i) + c + s.slice(i + 1) }
  if (cut != null) s = s.slice(0, cut % (s.length + 1))
  return prefix + s
}

export const cids = target({
  name: 'cid',
  about: 'mutated and random CID strings given to cid/format, cid/base32, block/stat, dag/get, pin/add, refs, ls, cat',
  arb: fc.record({
    pick: fc.nat(),
    edits: fc.array(fc.tuple(fc.nat(), fc.oneof(fc.constantFrom('0', 'O', 'l', '1', '=', '/', '%', 'Z', ''), fc.string({ maxLength: 2 }))), { maxLength: 3 }),
    cut: fc.option(fc.nat()),
    prefix: fc.constantFrom('', '/ipfs/', '/ipld/', '/ipns/', 'ipfs://', ' ', 'b', 'B', 'u', 'Qm'),
    random: fc.option(fc.string({ maxLength: 80 })),
    cmd: fc.constantFrom('cid/format?f=%25P-%25b-%25c-%25h-%25L-%25s&b=base58btc', 'cid/base32', 'cid/inspect', 'block/stat', 'dag/get', 'pin/add', 'refs', 'ls', 'cat', 'dag/stat')
  }),
  run: async (ctx, i) => {
    const s = i.random ?? cidString(ctx.fixtures, i.pick, i.edits, i.cut, i.prefix)
    return await post(ctx, `/api/v0/${i.cmd}${i.cmd.includes('?') ? '&' : '?'}arg=${q(s)}`)
  },
  runs: 25,
  daemonRuns: 6
})

// ---- multiaddrs (bootstrap add/rm) ----

export const multiaddrs = target({
  name: 'multiaddr',
  about: 'mutated multiaddrs given to bootstrap add and rm',
  arb: fc.array(fc.oneof(
    fc.constantFrom('ip4', 'ip6', 'tcp', 'udp', 'quic-v1', 'p2p', 'ipfs', 'dns4', 'dnsaddr', 'unix', 'webtransport', 'certhash', 'p2p-circuit', 'ws', ''),
    fc.constantFrom('127.0.0.1', '::1', '999.1.1.1', '4001', '70000', '-1', 'QmNnooDu7bfjPFoTZYxMNLWUQJyrVwtbZg5gBMjTezGAJN', '12D3KooWLQzUv2FHWGVPXTXSZpdHs7oHbXub2G5WC8Tx4NQhyd2d', 'uEiD', 'example.com', '%2Ftmp'),
    fc.string({ maxLength: 12 })
  ), { maxLength: 8 }).chain(segs => fc.record({ addr: fc.constant('/' + segs.join('/')), rm: fc.boolean() })),
  run: async (ctx, { addr, rm }) => {
    const o = await post(ctx, `/api/v0/bootstrap/${rm ? 'rm' : 'add'}?arg=${q(addr)}`)
    if (o === 'ok' && !rm) await post(ctx, `/api/v0/bootstrap/rm?arg=${q(addr)}`)
    return o
  },
  runs: 30,
  daemonRuns: 5
})

// ---- paths ----

const segment = fc.oneof(
  fc.constantFrom('..', '.', '', 'a.txt', 'sub', 'index.html', 'nope', '%00', '\u0000', '%2F', 'a%2Fb', '~', 'ipfs', 'ipns', '\u00e9', 'x'.repeat(300)),
  fc.string({ maxLength: 10 })
)
const hostilePath = fc.record({
  ns: fc.constantFrom('/ipfs/', '/ipns/', '/ipld/', '/', '', 'ipfs/', '/ipfs//'),
  root: fc.constantFrom('file', 'big', 'dir', 'cbor', 'none', 'junk'),
  segs: fc.array(segment, { maxLength: 6 })
})
const pathOf = (ctx: FuzzContext, p: { ns: string, root: string, segs: string[] }): string => {
  const root = p.root === 'none' ? '' : p.root === 'junk' ? 'notacid' : (ctx.fixtures as unknown as Record<string, string>)[p.root]
  return p.ns + root + (p.segs.length > 0 ? '/' + p.segs.join('/') : '')
}

export const paths = target({
  name: 'path',
  about: 'hostile content paths given to cat, ls, dag/resolve, refs, files/stat, files/read, get',
  arb: fc.record({ p: hostilePath, cmd: fc.constantFrom('cat', 'ls', 'dag/resolve', 'dag/get', 'refs', 'files/stat', 'files/read', 'get', 'block/stat') }),
  run: async (ctx, { p, cmd }) => await post(ctx, `/api/v0/${cmd}?arg=${q(pathOf(ctx, p))}`),
  runs: 25,
  daemonRuns: 6
})

export { pathOf, hostilePath }

// ---- query strings ----

const queryChar = fc.constantFrom('%', '%z', '%zz', '%00', '%0', '%C3', '%FF', '%%', '&', '=', ';', '+', '?', '#x', 'arg', '/', 'a', '1', '~', '%2', '%u0041', '[', ']')
export const queryStrings = target({
  name: 'query',
  about: 'query strings with bad percent-encoding, repeated and empty keys',
  arb: fc.record({
    cmd: fc.constantFrom('version', 'cid/format', 'block/stat', 'config', 'cat', 'bootstrap/list', 'id', 'dag/get', 'files/ls', 'key/list', 'pin/ls'),
    raw: fc.array(fc.oneof(queryChar, fc.stringMatching(/^[!-~]{0,6}$/)), { maxLength: 20 }).map(a => a.join('').replace(/#/g, '%23'))
  }),
  run: async (ctx, { cmd, raw }) => {
    const req: Req = { path: `/api/v0/${cmd}?${raw}` }
    return rpcOutcome(req, await send(ctx.rpc, req), [404])
  },
  runs: 30,
  daemonRuns: 6
})

/** Kubo's server reads request heads up to 1 MiB: 10k args and 1 MB values are answered, not refused. */
export const queryBig = target({
  name: 'query-big',
  about: '10,000 args; a 1 MB value; a 100 KiB header',
  arb: fc.constantFrom('args', 'value', 'header', 'args-cat'),
  run: async (ctx, kind) => {
    const req: Req = kind === 'args'
      ? { path: '/api/v0/cid/base32?' + Array.from({ length: 10_000 }, (_, i) => `arg=${ctx.fixtures.file}${i % 2 === 0 ? '' : '%zz'}`).join('&') }
      : kind === 'args-cat'
        ? { path: '/api/v0/cat?' + Array.from({ length: 10_000 }, () => `arg=${ctx.fixtures.file}`).join('&') }
        : kind === 'value'
          ? { path: `/api/v0/cid/format?arg=${'Q'.repeat(1 << 20)}&arg=%41` }
          : { path: '/api/v0/version', headers: { 'X-Big': 'v'.repeat(100 << 10) } }
    const res = await send(ctx.rpc, req)
    const o = rpcOutcome(req, res)
    if (kind === 'header' && o !== 'ok') throw violation('a 100 KiB header was refused', req, res)
    return o
  },
  runs: 4,
  daemonRuns: 4
})
