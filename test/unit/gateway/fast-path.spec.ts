// The fast path (server/gateway/fast.ts) against the full Koa path: for each request, a gateway with the
// fast path and one without it, over the same node (flatfs repo, so the block LRU and the response cache
// are live), answer with the same status, the same header lines in the same order (Date aside) and the
// same body; and each row says whether the fast path answered or left the request to the full path.
import { expect } from 'chai'
import sinon from 'sinon'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promises as fs } from 'node:fs'
import { UnixFS } from 'ipfs-unixfs'
import { fixedSize } from 'ipfs-unixfs-importer/chunker'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import type { Json } from '../../../core/config/index.js'
import { initRepo } from '../../../core/repo/index.js'
import { createGatewayApp } from '../../../server/gateway/index.js'
import { FastPath } from '../../../server/gateway/fast.js'
import { dirListingEtag } from '../../../server/gateway/headers.js'
import { startGateway, type TestGateway } from './helpers.js'
import { importBytes, importEntries, pseudoRandom, putBlock } from '../plugins/unixfs-helper.js'

interface Answer {
  status: number
  /** header lines in order, Date left out */
  headers: string[]
  body: string
  /** set when the connection was cut */
  error?: string
}

/** One request on a new connection, the answer as sent. */
async function raw (port: number, target: string, method = 'GET', headers: Record<string, string> = {}): Promise<Answer> {
  return await new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: target, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      const lines: string[] = []
      for (let i = 0; i < res.rawHeaders.length; i += 2) {
        if (res.rawHeaders[i].toLowerCase() !== 'date') lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`)
      }
      const done = (error?: string): void => resolve({ status: res.statusCode ?? 0, headers: lines, body: Buffer.concat(chunks).toString('hex'), error })
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => done())
      res.on('error', (err) => done(err.message))
      res.on('aborted', () => done('aborted'))
    })
    req.on('error', (err) => resolve({ status: 0, headers: [], body: '', error: err.message }))
    req.end()
  })
}

describe('gateway: fast path answers as the full path', function () {
  this.timeout(60_000)
  let dir: string
  let gw: TestGateway
  let full: http.Server
  let fullPort: number
  let answers: sinon.SinonSpy
  const c: Record<string, string> = {}

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-gwfast-'))
    await initRepo(dir, { profile: 'test' })
    gw = await startGateway({ repoPath: dir })
    const bs = gw.node.container.cradle.blockstore
    c.bin = await importBytes(bs, pseudoRandom(1024, 7))
    c.text = await importBytes(bs, 'hello fast path\n')
    c.html = await importBytes(bs, '<!doctype html><title>x</title>\n')
    c.json = await importBytes(bs, '{"a":[1,2]}')
    c.raw = await importBytes(bs, pseudoRandom(3000, 3), { cidVersion: 1, rawLeaves: true })
    c.multi = await importBytes(bs, pseudoRandom(5000, 5), { cidVersion: 1, rawLeaves: true, chunker: fixedSize({ chunkSize: 1024 }) })
    c.multipb = await importBytes(bs, pseudoRandom(5000, 9), { chunker: fixedSize({ chunkSize: 2000 }) })
    c.big = await importBytes(bs, pseudoRandom(100_000, 11))
    c.empty = await importBytes(bs, new Uint8Array(0))
    c.mtime = (await importEntries(bs, [{ path: 'm.bin', content: pseudoRandom(700, 13), mtime: { secs: 1_700_000_000n } }])).get('m.bin') as string
    const tree = await importEntries(bs, [
      { path: 'site/index.html', content: '<p>index</p>\n' },
      { path: 'site/a.txt', content: 'a text file\n' },
      { path: 'site/pic.png', content: pseudoRandom(500, 17) },
      { path: 'site/sub/b.bin', content: pseudoRandom(300, 19) },
      { path: 'site/sub/deeper/index.html', content: '<p>deeper</p>\n' }
    ], { wrapWithDirectory: false })
    c.site = tree.get('site') as string
    const link = new UnixFS({ type: 'symlink', data: new TextEncoder().encode('a.txt') })
    c.symlink = (await putBlock(bs, 'dag-pb', { Data: link.marshal(), Links: [] }, true)).toString()
    c.cbor = (await putBlock(bs, 'dag-cbor', { hello: 'world' })).toString()
    // a root whose leaf is not here, and a root that is not here at all
    const leaf = CID.createV1(0x55, await sha256.digest(pseudoRandom(64, 23)))
    const partial = new UnixFS({ type: 'file', blockSizes: [64n] })
    c.partial = (await putBlock(bs, 'dag-pb', { Data: partial.marshal(), Links: [{ Hash: leaf, Tsize: 64 }] }, true)).toString()
    c.absent = CID.createV0(await sha256.digest(pseudoRandom(99, 29))).toString()

    const app = createGatewayApp({ container: gw.node.container, dnslink: {}, fastPath: false })
    full = http.createServer(app.callback())
    await new Promise<void>(resolve => full.listen(0, '127.0.0.1', resolve))
    fullPort = (full.address() as net.AddressInfo).port
    answers = sinon.spy(FastPath.prototype, 'answer')
  })

  after(async () => {
    answers.restore()
    full.closeAllConnections()
    await new Promise<void>(resolve => full.close(() => resolve()))
    await gw.stop()
    await fs.rm(dir, { recursive: true, force: true })
  })

  /** Whether the fast path answered the last request it was asked about since `since` calls. */
  const answeredSince = async (since: number): Promise<boolean | undefined> => {
    if (answers.callCount === since) return undefined
    return (await answers.lastCall.returnValue) != null
  }

  interface Row { name: string, path: () => string, method?: string, headers?: Record<string, string> | (() => Record<string, string>), fast: boolean }
  const rows: Row[] = [
    { name: 'a small dag-pb file', path: () => `/ipfs/${c.bin}`, fast: true },
    { name: 'HEAD of it', path: () => `/ipfs/${c.bin}`, method: 'HEAD', fast: true },
    { name: 'a trailing slash after a file', path: () => `/ipfs/${c.bin}/`, fast: true },
    { name: 'a byte range', path: () => `/ipfs/${c.bin}`, headers: { Range: 'bytes=1-10' }, fast: true },
    { name: 'a suffix range', path: () => `/ipfs/${c.bin}`, headers: { Range: 'bytes=-5' }, fast: true },
    { name: 'an open range', path: () => `/ipfs/${c.bin}`, headers: { Range: 'bytes=1000-' }, fast: true },
    { name: 'HEAD with a range', path: () => `/ipfs/${c.bin}`, method: 'HEAD', headers: { Range: 'bytes=1-10' }, fast: true },
    { name: 'a range not at 0 (typed from its bytes)', path: () => `/ipfs/${c.html}`, headers: { Range: 'bytes=1-' }, fast: true },
    { name: 'a range at 0 (typed from the file\'s start)', path: () => `/ipfs/${c.html}`, headers: { Range: 'bytes=0-5' }, fast: true },
    { name: 'a suffix of 0', path: () => `/ipfs/${c.html}`, headers: { Range: 'bytes=-0' }, fast: true },
    { name: 'a range not at 0 of a multi-leaf file', path: () => `/ipfs/${c.multipb}`, headers: { Range: 'bytes=1990-2010' }, fast: true },
    { name: 'a suffix longer than the file (500)', path: () => `/ipfs/${c.bin}`, headers: { Range: 'bytes=-1025' }, fast: false },
    { name: 'two ranges', path: () => `/ipfs/${c.bin}`, headers: { Range: 'bytes=0-0,5-6' }, fast: false },
    { name: 'an unsatisfiable range', path: () => `/ipfs/${c.bin}`, headers: { Range: 'bytes=5000-6000' }, fast: false },
    { name: 'a range of another unit', path: () => `/ipfs/${c.bin}`, headers: { Range: 'items=1-2' }, fast: false },
    { name: 'If-None-Match with the Etag (304)', path: () => `/ipfs/${c.bin}`, headers: () => ({ 'If-None-Match': `"${c.bin}"` }), fast: true },
    { name: 'If-None-Match with the Etag in a list', path: () => `/ipfs/${c.bin}`, headers: () => ({ 'If-None-Match': `"x", "${c.bin}"` }), fast: true },
    { name: 'If-None-Match with another tag', path: () => `/ipfs/${c.bin}`, headers: { 'If-None-Match': '"other"' }, fast: false },
    { name: 'If-None-Match: *', path: () => `/ipfs/${c.bin}`, headers: { 'If-None-Match': '*' }, fast: true },
    { name: 'If-None-Match with the directory listing tag', path: () => `/ipfs/${c.site}/`, headers: () => ({ 'If-None-Match': dirListingEtag(CID.parse(c.site)) }), fast: true },
    { name: 'If-Modified-Since', path: () => `/ipfs/${c.mtime}`, headers: { 'If-Modified-Since': 'Wed, 21 Oct 2015 07:28:00 GMT' }, fast: false },
    { name: 'If-Range', path: () => `/ipfs/${c.bin}`, headers: { Range: 'bytes=1-2', 'If-Range': '"nope"' }, fast: false },
    { name: 'a text file (sniffed)', path: () => `/ipfs/${c.text}`, fast: true },
    { name: 'an HTML file (sniffed)', path: () => `/ipfs/${c.html}`, fast: true },
    { name: 'a JSON file (sniffed)', path: () => `/ipfs/${c.json}`, fast: true },
    { name: 'a raw-leaf CIDv1 file', path: () => `/ipfs/${c.raw}`, fast: true },
    { name: 'a file of several raw leaves', path: () => `/ipfs/${c.multi}`, fast: true },
    { name: 'a range across leaves', path: () => `/ipfs/${c.multi}`, headers: { Range: 'bytes=1000-3100' }, fast: true },
    { name: 'a file of several dag-pb leaves, ranged', path: () => `/ipfs/${c.multipb}`, headers: { Range: 'bytes=1990-2010' }, fast: true },
    { name: 'a file with an mtime (Last-Modified)', path: () => `/ipfs/${c.mtime}`, fast: true },
    { name: 'a body above the in-memory limit (streamed by the full path)', path: () => `/ipfs/${c.big}`, fast: false },
    { name: 'HEAD of that body', path: () => `/ipfs/${c.big}`, method: 'HEAD', fast: true },
    { name: 'a small range of that body', path: () => `/ipfs/${c.big}`, headers: { Range: 'bytes=70000-70100' }, fast: true },
    { name: 'an open range of that body (streamed)', path: () => `/ipfs/${c.big}`, headers: { Range: 'bytes=1000-' }, fast: false },
    { name: 'an empty file', path: () => `/ipfs/${c.empty}`, fast: false },
    { name: 'a directory with index.html', path: () => `/ipfs/${c.site}/`, fast: true },
    { name: 'HEAD of that directory', path: () => `/ipfs/${c.site}/`, method: 'HEAD', fast: true },
    { name: 'a directory without its slash (redirect)', path: () => `/ipfs/${c.site}`, fast: false },
    { name: 'index.html by name', path: () => `/ipfs/${c.site}/index.html`, fast: true },
    { name: 'a path into the directory (type by extension)', path: () => `/ipfs/${c.site}/a.txt`, fast: true },
    { name: 'a .png by extension', path: () => `/ipfs/${c.site}/pic.png`, fast: true },
    { name: 'a deeper index.html', path: () => `/ipfs/${c.site}/sub/deeper/`, fast: true },
    { name: 'a directory without index.html (listing)', path: () => `/ipfs/${c.site}/sub/`, fast: false },
    { name: 'a missing path (404)', path: () => `/ipfs/${c.site}/nope.txt`, fast: false },
    { name: 'an unclean path (redirect)', path: () => `/ipfs/${c.site}//a.txt`, fast: false },
    { name: 'a percent-escaped path', path: () => `/ipfs/${c.site}/%61.txt`, fast: false },
    { name: 'a symlink', path: () => `/ipfs/${c.symlink}`, fast: false },
    { name: 'a dag-cbor block', path: () => `/ipfs/${c.cbor}`, fast: false },
    { name: 'a file whose leaf is missing', path: () => `/ipfs/${c.partial}`, fast: false },
    { name: 'a root that is missing', path: () => `/ipfs/${c.absent}`, fast: false },
    { name: 'an invalid CID', path: () => '/ipfs/not-a-cid', fast: false },
    { name: '/ipfs/ipfs/…', path: () => `/ipfs/ipfs/${c.bin}`, fast: false },
    { name: 'a query string', path: () => `/ipfs/${c.bin}?filename=x.txt`, fast: false },
    { name: 'Accept: raw block', path: () => `/ipfs/${c.bin}`, headers: { Accept: 'application/vnd.ipld.raw' }, fast: false },
    { name: 'a browser Accept', path: () => `/ipfs/${c.text}`, headers: { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }, fast: true },
    { name: 'Cache-Control: only-if-cached', path: () => `/ipfs/${c.bin}`, headers: { 'Cache-Control': 'only-if-cached' }, fast: false },
    { name: 'a named host (subdomain and DNSLink rules)', path: () => `/ipfs/${c.bin}`, headers: { Host: 'localhost' }, fast: false },
    { name: 'X-Forwarded-Host', path: () => `/ipfs/${c.bin}`, headers: { 'X-Forwarded-Host': 'example.org' }, fast: false },
    { name: 'POST (405)', path: () => `/ipfs/${c.bin}`, method: 'POST', fast: false }
  ]

  for (const row of rows) {
    it(`${row.name}: same answer, ${row.fast ? 'from the fast path' : 'from the full path'}`, async () => {
      // a header outside the response cache's neutral list: neither gateway answers from its cache
      const headers = { ...(typeof row.headers === 'function' ? row.headers() : row.headers), 'X-Test-Uncached': '1' }
      const since = answers.callCount
      const a = await raw(gw.port, row.path(), row.method, headers)
      expect(await answeredSince(since) === true, 'answered by the fast path').to.equal(row.fast)
      const b = await raw(fullPort, row.path(), row.method, headers)
      expect(a).to.deep.equal(b)
    })
  }

  it('what the fast path puts in the response cache is the full path\'s answer', async () => {
    for (const method of ['GET', 'HEAD']) {
      for (const p of [`/ipfs/${c.text}`, `/ipfs/${c.site}/`, `/ipfs/${c.multi}`]) {
        const since = answers.callCount
        const first = await raw(gw.port, p, method)
        expect(await answeredSince(since), `${method} ${p} first`).to.equal(true)
        const again = await raw(gw.port, p, method)
        // the cache answered: the fast path was not asked
        expect(answers.callCount, `${method} ${p} again`).to.equal(since + 1)
        const reference = await raw(fullPort, p, method)
        expect(first).to.deep.equal(reference)
        expect(again).to.deep.equal(reference)
      }
    }
  })

  it('does not answer from kept blocks once a block was removed', async () => {
    const bs = gw.node.container.cradle.blockstore
    const p = `/ipfs/${c.json}`
    const headers = { 'X-Test-Uncached': '1' }
    const ok = await raw(gw.port, p, 'GET', headers)
    expect(ok.status).to.equal(200)
    const cid = CID.parse(c.json)
    const bytes = await (async () => { const parts: Uint8Array[] = []; for await (const chunk of bs.get(cid)) parts.push(chunk); return Buffer.concat(parts) })()
    await bs.delete(cid)
    try {
      const since = answers.callCount
      const gone = await raw(gw.port, p, 'GET', headers)
      expect(await answeredSince(since)).to.equal(false)
      expect(gone.status).to.not.equal(200)
      expect(gone).to.deep.equal(await raw(fullPort, p, 'GET', headers))
    } finally {
      await bs.put(cid, bytes)
    }
    expect((await raw(gw.port, p, 'GET', headers)).status).to.equal(200)
  })

  it('leaves a Gateway.HTTPHeaders value Node refuses to the full path', async () => {
    const config = gw.node.container.cradle.config
    const before = config.get().Gateway
    await config.setKey('Gateway.HTTPHeaders', { 'X-Bad': ['a\u0001b'] })
    try {
      const since = answers.callCount
      const a = await raw(gw.port, `/ipfs/${c.text}`, 'GET', { 'X-Test-Uncached': '1' })
      expect(answers.callCount).to.equal(since + 1)
      expect(a).to.deep.equal(await raw(fullPort, `/ipfs/${c.text}`, 'GET', { 'X-Test-Uncached': '1' }))
      expect(a.status).to.equal(500)
    } finally {
      await config.setKey('Gateway.HTTPHeaders', (before as { HTTPHeaders?: Json } | undefined)?.HTTPHeaders ?? {})
    }
  })

  it('follows Gateway.HTTPHeaders changes', async () => {
    const config = gw.node.container.cradle.config
    const before = config.get().Gateway
    await config.setKey('Gateway.HTTPHeaders', { 'X-Extra': ['one', 'two'] })
    try {
      const since = answers.callCount
      const a = await raw(gw.port, `/ipfs/${c.text}`, 'GET', { 'X-Test-Uncached': '1' })
      expect(await answeredSince(since)).to.equal(true)
      expect(a.headers).to.include.members(['X-Extra: one', 'X-Extra: two'])
      expect(a).to.deep.equal(await raw(fullPort, `/ipfs/${c.text}`, 'GET', { 'X-Test-Uncached': '1' }))
    } finally {
      await config.setKey('Gateway.HTTPHeaders', (before as { HTTPHeaders?: Json } | undefined)?.HTTPHeaders ?? {})
    }
  })
})
