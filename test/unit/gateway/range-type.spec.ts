// The Content-Type of a range of a file typed by neither extension nor caller, as Kubo 0.40.1 answers it:
// boxo sniffs the file's start (its mimetype rules) only when the first range starts at 0 ("0-…", and
// "-0" which boxo keeps as a negative start of 0); for any other GET range net/http sniffs the range body
// (DetectContentType, whose "text/html; charset=utf-8" is kept). HEAD keeps the file's start. A GET whose
// first range is a suffix longer than the file fails boxo's seek: 500. Both the fast path (IP host) and
// the full path (named host) answer so.
import { expect } from 'chai'
import { importBytes, importEntries } from '../plugins/unixfs-helper.js'
import { fixedSize } from 'ipfs-unixfs-importer/chunker'
import { startGateway, type TestGateway } from './helpers.js'

/** PNG magic, zeros, gzip magic at 100, HTML after whitespace at 200, plain text from 400 (1200 bytes). */
function mixed (): Uint8Array {
  const b = Buffer.alloc(1200)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0)
  Buffer.from([0x1f, 0x8b, 0x08]).copy(b, 100)
  Buffer.from('  \n<HTML>hi</HTML> and more').copy(b, 200)
  Buffer.from('just some text\n'.repeat(54)).copy(b, 400)
  return b
}

const HTML = '<html><body>' + '<p>para</p>\n'.repeat(20) + '</body></html>'

describe('gateway: Content-Type of a range not at 0 (as Kubo: net/http sniffs the range body)', function () {
  this.timeout(30_000)
  let gw: TestGateway
  const c: Record<string, string> = {}
  before(async () => {
    gw = await startGateway()
    const bs = gw.node.container.cradle.blockstore
    c.mixed = await importBytes(bs, mixed())
    c.html = await importBytes(bs, HTML)
    // 256-byte leaves: zeros up to 300, then text
    c.chunked = await importBytes(bs, Buffer.concat([Buffer.alloc(300), Buffer.from('text after zeros\n'.repeat(20))]), { chunker: fixedSize({ chunkSize: 256 }) })
    c.dir = (await importEntries(bs, [{ path: 'd/pic.bin', content: mixed() }], { wrapWithDirectory: false })).get('d') as string
  })
  after(async () => { await gw.stop() })

  for (const [label, host] of [['full path', 'example.com'], ['fast path', '127.0.0.1']]) {
    describe(label, () => {
      const get = async (p: string, range: string, method = 'GET'): Promise<{ status: number, type: unknown, text: string, range: unknown }> => {
        const res = await gw.get(p, { method, headers: { Host: host, Range: range, 'X-Test-Uncached': '1' } })
        return { status: res.status, type: res.headers['content-type'], text: res.text, range: res.headers['content-range'] }
      }
      const cases: Array<[string, string, string]> = [
        ['bytes=0-50', 'image/png', 'the first range at 0: the file\'s start'],
        ['bytes=-0', 'image/png', 'a suffix of 0 (boxo: a start of 0)'],
        ['bytes=8-50', 'application/octet-stream', 'binary bytes'],
        ['bytes=100-150', 'application/x-gzip', 'net/http\'s gzip signature'],
        ['bytes=200-260', 'text/html; charset=utf-8', 'HTML after whitespace, type kept whole'],
        ['bytes=400-', 'text/plain; charset=utf-8', 'text'],
        ['bytes=-100', 'text/plain; charset=utf-8', 'a suffix'],
        ['bytes=100-150,0-1', 'application/x-gzip', 'two ranges: the first one alone, typed as a single range']
      ]
      for (const [range, type, why] of cases) {
        it(`GET ${range}: ${type} (${why})`, async () => {
          const r = await get(`/ipfs/${c.mixed}`, range)
          expect(r.status).to.equal(206)
          expect(String(r.type).startsWith(type), String(r.type)).to.equal(true)
        })
      }

      it('HEAD of a range not at 0 keeps the file\'s start', async () => {
        const r = await get(`/ipfs/${c.mixed}`, 'bytes=400-', 'HEAD')
        expect(r.status).to.equal(206)
        expect(r.type).to.equal('image/png')
      })

      it('a suffix of the whole file is sniffed by net/http, bytes=0- by the file\'s start', async () => {
        expect((await get(`/ipfs/${c.html}`, `bytes=-${HTML.length}`)).type).to.equal('text/html; charset=utf-8')
        expect((await get(`/ipfs/${c.html}`, 'bytes=0-')).type).to.equal('text/html')
      })

      it('a range across leaves: its own first bytes', async () => {
        expect((await get(`/ipfs/${c.chunked}`, 'bytes=250-400')).type).to.equal('application/octet-stream')
        expect((await get(`/ipfs/${c.chunked}`, 'bytes=300-400')).type).to.equal('text/plain; charset=utf-8')
        expect((await get(`/ipfs/${c.chunked}`, 'bytes=-20')).type).to.equal('text/plain; charset=utf-8')
      })

      it('a file typed by its extension is not sniffed', async () => {
        const r = await get(`/ipfs/${c.dir}/pic.bin`, 'bytes=400-')
        expect(r.status).to.equal(206)
        expect(r.type).to.equal('application/octet-stream')
      })

      it('a GET whose first range is a suffix longer than the file: 500 (boxo\'s seek), HEAD: 206', async () => {
        for (const range of ['bytes=-1201', 'bytes=-5000,0-1']) {
          const r = await get(`/ipfs/${c.mixed}`, range)
          expect(r.status).to.equal(500)
          expect(r.text).to.equal(`failed to resolve /ipfs/${c.mixed}: invalid range: negative start bigger than the file size\n`)
        }
        const named = await get(`/ipfs/${c.dir}/pic.bin`, 'bytes=-1201')
        expect(named.status).to.equal(500)
        expect(named.text).to.equal(`failed to resolve /ipfs/${c.dir}/pic.bin: invalid range: negative start bigger than the file size\n`)
        const whole = await get(`/ipfs/${c.mixed}`, 'bytes=-1200')
        expect(whole.status).to.equal(206)
        expect(whole.range).to.equal('bytes 0-1199/1200')
        const head = await get(`/ipfs/${c.mixed}`, 'bytes=-1201', 'HEAD')
        expect(head.status).to.equal(206)
      })
    })
  }
})
