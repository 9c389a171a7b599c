// Fuzz targets on config JSON (RPC) and on the gateway: paths, Range headers, Host headers.
import fc from 'fast-check'
import { gatewayOutcome, multipartBody, rpcOutcome, send, target, violation, type FuzzContext, type Outcome, type Req } from './harness.js'
import { hostilePath, pathOf } from './targets-rpc.js'

// ---- config JSON ----

const saved = new WeakMap<FuzzContext, Buffer>()

async function configBody (ctx: FuzzContext): Promise<Buffer> {
  let b = saved.get(ctx)
  if (b == null) {
    const r = await send(ctx.rpc, { path: '/api/v0/config/show' })
    if (r.status !== 200) throw new Error(`config show: ${r.status} ${r.text}`)
    b = r.body
    saved.set(ctx, b)
  }
  return b
}

async function replace (ctx: FuzzContext, body: Buffer): Promise<{ req: Req, res: Awaited<ReturnType<typeof send>> }> {
  const req: Req = { path: '/api/v0/config/replace', headers: { 'Content-Type': 'multipart/form-data; boundary=cfg' }, body: multipartBody('cfg', [{ headers: ['Content-Disposition: form-data; name="file"; filename="config"'], content: body }]) }
  return { req, res: await send(ctx.rpc, req) }
}

/** put the config back as it was before the case */
async function restore (ctx: FuzzContext): Promise<void> {
  const { req, res } = await replace(ctx, await configBody(ctx))
  if (res.status !== 200) throw violation('could not restore the config', req, res)
}

/** Keys the fuzzer may write: anything but API.* (a random API.Authorizations would lock the harness out). */
const keySeg = fc.oneof(fc.constantFrom('Gateway', 'Addresses', 'Swarm', 'Datastore', 'Spec', 'Import', 'Pubsub', 'Routing', 'Bootstrap', 'Peering', 'Peers', '0', '-1', '', 'X', 'HTTPHeaders', 'StorageMax'), fc.stringMatching(/^[A-Za-z0-9_ -]{1,10}$/))
const protoSeg = fc.constantFrom('__proto__', 'constructor', 'prototype')
const configValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map(v => JSON.stringify(v)),
  fc.constantFrom('{', '[1,', 'nul', '"\\ud800"', '1e999', '{"a":1,"a":2}', '', '""', '"10GB"', '"-1"', '[]', 'null', 'true'),
  fc.string({ maxLength: 30 })
)

const notProtoKey = (segs: string[]): string => {
  const k = segs.join('.')
  return k.startsWith('API') ? 'X.' + k : k
}

export const configJson = target({
  name: 'config',
  about: 'config --json/--bool set and config replace with random and mutated JSON (invalid bytes, wrong types, deep values)',
  arb: fc.oneof(
    fc.record({ kind: fc.constant('set' as const), key: fc.array(keySeg, { minLength: 1, maxLength: 5 }).map(notProtoKey), value: configValue, flag: fc.constantFrom('json=true', 'bool=true', '') }),
    fc.record({ kind: fc.constant('replace' as const), body: fc.oneof(fc.jsonValue({ maxDepth: 4 }).map(v => Buffer.from(JSON.stringify(v))), fc.uint8Array({ maxLength: 200 }).map(u => Buffer.from(u)), fc.constantFrom('{}', '{"Identity":{}}', '{"Identity":{"PeerID":"x"}}', '[]', '{"Datastore":{"Spec":1}}').map(s => Buffer.from(s))) }),
    fc.record({ kind: fc.constant('mutate' as const), key: fc.array(keySeg, { minLength: 1, maxLength: 3 }).map(notProtoKey), value: fc.jsonValue({ maxDepth: 2 }) })
  ),
  run: async (ctx, c) => {
    let o: Outcome
    if (c.kind === 'set') {
      const req: Req = { path: `/api/v0/config?arg=${encodeURIComponent(c.key)}&arg=${encodeURIComponent(c.value)}&${c.flag}` }
      o = rpcOutcome(req, await send(ctx.rpc, req))
    } else {
      let body = c.kind === 'replace' ? c.body : Buffer.alloc(0)
      if (c.kind === 'mutate') {
        const cfg = JSON.parse((await configBody(ctx)).toString())
        let at = cfg
        const segs = c.key.split('.')
        for (const s of segs.slice(0, -1)) { if (at[s] == null || typeof at[s] !== 'object') at[s] = {}; at = at[s] }
        at[segs.at(-1) as string] = c.value
        body = Buffer.from(JSON.stringify(cfg))
      }
      const { req, res } = await replace(ctx, body)
      o = rpcOutcome(req, res)
    }
    await restore(ctx)
    if (Object.keys(Object.prototype).length > 0) throw violation(`Object.prototype polluted: ${Object.keys(Object.prototype).join(',')}`, undefined)
    return o
  },
  runs: 25,
  daemonRuns: 6
})

export const configProto = target({
  name: 'config-proto',
  about: 'config keys through __proto__/constructor/prototype: refused, nothing reaches Object.prototype',
  arb: fc.record({ pre: fc.array(keySeg, { maxLength: 2 }), proto: protoSeg, post: fc.array(fc.constantFrom('x', 'polluted', 'toString'), { minLength: 0, maxLength: 2 }), value: fc.constantFrom('1', '"x"', '{"a":1}') }),
  run: async (ctx, { pre, proto, post, value }) => {
    const key = notProtoKey([...pre, proto, ...post])
    const req: Req = { path: `/api/v0/config?arg=${encodeURIComponent(key)}&arg=${encodeURIComponent(value)}&json=true` }
    const o = rpcOutcome(req, await send(ctx.rpc, req))
    const { req: rreq, res } = await replace(ctx, Buffer.from(`{"Identity":{},"${proto}":{"polluted":1},"Gateway":{"${proto}":{"x":1}}}`))
    rpcOutcome(rreq, res)
    await restore(ctx)
    if (Object.keys(Object.prototype).length > 0 || ({} as Record<string, unknown>).polluted != null) throw violation(`Object.prototype polluted: ${Object.keys(Object.prototype).join(',')}`, req)
    return o
  },
  runs: 20,
  daemonRuns: 5
})

// ---- gateway ----

const byteSeg = fc.uint8Array({ minLength: 1, maxLength: 8 }).map(u => [...u].map(b => '%' + b.toString(16).padStart(2, '0')).join(''))
const gwQuery = fc.constantFrom('', '?format=raw', '?format=car', '?format=tar', '?format=dag-json', '?format=nope', '?filename=../x&download=true', '?format=car&dag-scope=entity&entity-bytes=0:-1', '?format=car&entity-bytes=5:2', '?format=car&car-version=3', '?%zz=1', '?format=ipns-record', '?format=car&dag-scope=block&dups=y&order=dfs')

export const gatewayPaths = target({
  name: 'gateway-path',
  about: 'gateway GETs of hostile paths: traversal, escaped bytes, %00, odd namespaces, format/entity-bytes queries',
  arb: fc.record({ p: hostilePath, extra: fc.array(byteSeg, { maxLength: 2 }), query: gwQuery, method: fc.constantFrom('GET', 'HEAD', 'GET', 'POST', 'OPTIONS') }),
  run: async (ctx, { p, extra, query, method }) => {
    // control characters have a target of their own (gateway-ctl)
    const raw = (pathOf(ctx, p) + (extra.length > 0 ? '/' + extra.join('/') : '')).replace(/%[01][0-9a-f]|%7f|[\u0000-\u001f\u007f]/gi, '%41')
    // the request target as a client may send it: characters a URL cannot carry are escaped
    const path = '/' + raw.replace(/^\/+/, '').split('/').map(s => s.replace(/[^!-~]|[?#]/gu, c => encodeURIComponent(c))).join('/') + query
    const req: Req = { method, path }
    return gatewayOutcome(req, await send(ctx.gateway, req))
  },
  runs: 25,
  daemonRuns: 6
})

const rangeSpec = fc.oneof(
  fc.tuple(fc.option(fc.oneof(fc.nat(5000), fc.constantFrom(99999999999999999999, -1))), fc.option(fc.oneof(fc.nat(5000), fc.constant(2 ** 64)))).map(([a, b]) => `${a ?? ''}-${b ?? ''}`),
  fc.constantFrom('', '-', '--1', '0-0', '1-0', 'a-b', ' 0 - 1 ', '0x10-0x20', '-0', '4095-', '4096-', '0-4096')
)
export const rangeHeaders = target({
  name: 'range',
  about: 'Range headers: many ranges, reversed, huge numbers, junk units and syntax, on a multi-block file, a directory and a dag-cbor node',
  arb: fc.record({
    unit: fc.constantFrom('bytes=', 'bytes =', 'Bytes=', 'items=', '', 'bytes=bytes='),
    specs: fc.oneof(fc.array(rangeSpec, { minLength: 1, maxLength: 6 }), fc.constant(Array.from({ length: 1000 }, (_, i) => `${i}-${i}`))),
    sep: fc.constantFrom(',', ', ', ';', ',,'),
    on: fc.constantFrom('big', 'file', 'dir', 'cbor'),
    ifRange: fc.option(fc.constantFrom('"x"', 'W/"x"', 'Mon, 01 Jan 2001 00:00:00 GMT'))
  }),
  run: async (ctx, r) => {
    const headers: Record<string, string> = { Range: r.unit + r.specs.join(r.sep) }
    if (r.ifRange != null) headers['If-Range'] = r.ifRange
    const req: Req = { method: 'GET', path: `/ipfs/${(ctx.fixtures as unknown as Record<string, string>)[r.on]}`, headers }
    const res = await send(ctx.gateway, req)
    const o = gatewayOutcome(req, res)
    if (res.status === 206 && res.headers['content-range'] != null) {
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.headers['content-range'])
      if (m == null || Number(m[2]) < Number(m[1]) || Number(m[2]) >= Number(m[3]) || res.body.length !== Number(m[2]) - Number(m[1]) + 1) throw violation('206 with a wrong Content-Range or body length', req, res)
    }
    return o
  },
  runs: 25,
  daemonRuns: 6
})

const label = fc.oneof(fc.stringMatching(/^[a-z0-9-]{0,70}$/), fc.constantFrom('bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi', 'k51qzi5uqu5dk3v4rmjber23h16xnr23bsggmqqil9z2gduiis5se8dht36dam', 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG', 'en-wikipedia--on--ipfs-org', 'xn--', '*', '..', '%00', 'A', 'a'.repeat(300)))
export const hostHeaders = target({
  name: 'host',
  about: 'Host headers on the subdomain gateway: odd labels, CIDs and names in the wrong namespace, ports, IPv6, long names',
  arb: fc.record({
    labels: fc.array(label, { maxLength: 3 }),
    ns: fc.constantFrom('.ipfs.', '.ipns.', '.', '.ipfs.ipfs.', '.IPFS.'),
    domain: fc.constantFrom('example.com', 'EXAMPLE.com', 'example.com.', 'localhost', 'evil.com', '', '127.0.0.1', '[::1]'),
    port: fc.constantFrom('', ':8080', ':0', ':99999', ':x', ':'),
    path: fc.constantFrom('/', '/a.txt', '/ipfs/x', '/%2e%2e/', '/_redirects', '/?format=car'),
    cidOfFixture: fc.boolean(),
    proxy: fc.boolean()
  }),
  run: async (ctx, h) => {
    const labels = h.cidOfFixture ? [ctx.fixtures.dir, ...h.labels.slice(1)] : h.labels
    const host = labels.join('.') + (labels.length > 0 ? h.ns : '') + h.domain + h.port
    // absolute-form targets as a proxy client sends them too (attachProxySupport)
    const req: Req = { method: 'GET', path: h.proxy ? `http://${host}${h.path}` : h.path, headers: { Host: host } }
    return gatewayOutcome(req, await send(ctx.gateway, req))
  },
  runs: 25,
  daemonRuns: 6
})

export const gatewayNul = target({
  name: 'gateway-ctl',
  about: 'gateway paths with %00 and other control characters (Kubo: 400 or 404, never a 500 with Node\'s header error)',
  arb: fc.record({ root: fc.constantFrom('file', 'dir'), before: fc.constantFrom('', 'a', 'sub/'), ctl: fc.integer({ min: 0, max: 31 }), after: fc.constantFrom('', 'b', '/x') }),
  run: async (ctx, { root, before, ctl, after }) => {
    const req: Req = { method: 'GET', path: `/ipfs/${(ctx.fixtures as unknown as Record<string, string>)[root]}/${before}%${ctl.toString(16).padStart(2, '0')}${after}` }
    const res = await send(ctx.gateway, req)
    const o = gatewayOutcome(req, res)
    if (res.status >= 500) throw violation('a control character in the path is a server error', req, res)
    return o
  },
  runs: 10,
  daemonRuns: 3
})
