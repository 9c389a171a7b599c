// gateway.md §2.4: range requests (single, suffix, multi-range), reading only the blocks a range needs.
import { expect } from 'chai'
import { startGateway, type TestGateway } from './helpers.js'

const DIR = 'bafybeihchr7vmgjaasntayyatmp5sv6xza57iy2h4xj7g46bpjij6yhrmy'
const ASCII = `/ipfs/${DIR}/ascii.txt`
const MULTIBLOCK = `/ipfs/${DIR}/multiblock.txt`
const PARTIAL = '/ipfs/QmYhmPjhFjYFyaoiuNzYv8WGavpSRDwdHWe5B4M5du5Rtk'
const RAW_ROOT = 'bafybeie72edlprgtlwwctzljf6gkn2wnlrddqjbkxo3jomh4n7omwblxly'
const PLAIN_JSON = 'bagaaierajjsnhsxqlgfrvknlt7z2heoljcgfv37cn45tu7mhmr23x3ekiboq'

describe('gateway: range requests (§2.4)', () => {
  let gw: TestGateway
  before(async () => {
    gw = await startGateway({
      cars: ['path_gateway_unixfs/dir-with-files.car', 'trustless_gateway_car/file-3k-and-3-blocks-missing-block.car',
        'gateway-raw-block.car', 'path_gateway_dag/plain-json.car']
    })
  })
  after(async () => { await gw.stop() })

  it('without Range: 200, Accept-Ranges: bytes, the full body', async () => {
    const res = await gw.get(ASCII)
    expect(res.status).to.equal(200)
    expect(res.headers['accept-ranges']).to.equal('bytes')
    expect(res.text).to.equal('hello application/vnd.ipld.car\n')
  })

  it('bytes=6-16: 206 with Content-Range', async () => {
    const res = await gw.get(ASCII, { headers: { Range: 'bytes=6-16' } })
    expect(res.status).to.equal(206)
    expect(res.headers['content-range']).to.equal('bytes 6-16/31')
    expect(res.headers['content-length']).to.equal('11')
    expect(res.text).to.equal('application')
  })

  it('bytes=-3: the suffix', async () => {
    const res = await gw.get(ASCII, { headers: { Range: 'bytes=-3' } })
    expect(res.status).to.equal(206)
    expect(res.headers['content-range']).to.equal('bytes 28-30/31')
    expect(res.text).to.equal('ar\n')
  })

  // Kubo 0.40.1 (boxo's copy of ServeContent): the first satisfiable range alone, no multipart/byteranges;
  // the ranges still count together against the size (Go's "sum of ranges > size: the whole body")
  for (const [range, status, contentRange, body] of [
    ['bytes=6-16,0-4', 206, 'bytes 6-16/31', 'application'],
    ['bytes=-3,0-4', 206, 'bytes 28-30/31', 'ar\n'],
    ['bytes=99-,0-4', 206, 'bytes 0-4/31', 'hello'],
    ['bytes=0-4,99-', 206, 'bytes 0-4/31', 'hello'],
    ['bytes=0-20,0-20', 200, undefined, 'hello application/vnd.ipld.car\n']
  ] as const) {
    it(`${range}: ${status} ${contentRange ?? 'whole body'}, as Kubo`, async () => {
      for (const path of [ASCII, `${ASCII}?nocache=${range}`]) {
        const res = await gw.get(path, { headers: { Range: range } })
        expect(res.status).to.equal(status)
        expect(res.headers['content-range']).to.equal(contentRange)
        expect(res.headers['content-length']).to.equal(String(body.length))
        expect(res.text).to.equal(body)
      }
    })
  }

  it('a range across blocks of a multi-block file', async () => {
    const res = await gw.get(MULTIBLOCK, { headers: { Range: 'bytes=250-261' } })
    expect(res.status).to.equal(206)
    expect(res.headers['content-range']).to.equal('bytes 250-261/1026')
    const full = await gw.get(MULTIBLOCK)
    expect(res.body.equals(full.body.subarray(250, 262))).to.equal(true)
  })

  it('416 for a range past the end', async () => {
    const res = await gw.get(ASCII, { headers: { Range: 'bytes=100-200' } })
    expect(res.status).to.equal(416)
    expect(res.headers['content-range']).to.equal('bytes */31')
  })

  it('400 for a malformed Range', async () => {
    const res = await gw.get(ASCII, { headers: { Range: 'bytes=a-b' } })
    expect(res.status).to.equal(400)
    expect(res.text).to.include('invalid range request')
  })

  it('If-Range with another Etag sends the whole body', async () => {
    const res = await gw.get(ASCII, { headers: { Range: 'bytes=6-16', 'If-Range': '"nope"' } })
    expect(res.status).to.equal(200)
    expect(res.body.length).to.equal(31)
  })

  describe('a file whose middle block is missing', () => {
    it('serves ranges that need only the blocks present', async () => {
      const a = await gw.get(PARTIAL, { headers: { Range: 'bytes=997-1000' } })
      expect(a.status).to.equal(206)
      expect(a.headers['content-range']).to.equal('bytes 997-1000/3072')
      expect(a.body.length).to.equal(4)
      const b = await gw.get(PARTIAL, { headers: { Range: 'bytes=2200-2201' } })
      expect(b.status).to.equal(206)
      expect(b.headers['content-range']).to.equal('bytes 2200-2201/3072')
      expect(b.body.length).to.equal(2)
    })
    it('cuts a full read short instead of hanging', async () => {
      // either the connection is cut (the client sees the abort) or the body ends short of the length
      const res = await gw.get(PARTIAL).catch(err => err as Error)
      if (res instanceof Error) expect(res.message).to.match(/aborted|socket hang up|ECONNRESET/)
      else expect(res.body.length).to.be.below(3072)
    })
  })

  describe('raw blocks and plain codecs', () => {
    it('slices a block with Accept raw on a path', async () => {
      const res = await gw.get(`/ipfs/${RAW_ROOT}/dir`, { headers: { Accept: 'application/vnd.ipld.raw', Range: 'bytes=6-16' } })
      expect(res.status).to.equal(206)
      expect(res.headers['content-type']).to.equal('application/vnd.ipld.raw')
      expect(res.headers['content-range']).to.equal('bytes 6-16/57')
      const full = await gw.get(`/ipfs/${RAW_ROOT}/dir?format=raw`)
      expect(res.body.equals(full.body.subarray(6, 17))).to.equal(true)
    })
    it('slices a json block; of several ranges the first alone, typed application/json', async () => {
      const single = await gw.get(`/ipfs/${PLAIN_JSON}`, { headers: { Range: 'bytes=7-9' } })
      expect(single.status).to.equal(206)
      expect(single.headers['content-range']).to.equal('bytes 7-9/26')
      const multi = await gw.get(`/ipfs/${PLAIN_JSON}`, { headers: { Range: 'bytes=7-9,1-3' } })
      expect(multi.status).to.equal(206)
      expect(multi.headers['content-range']).to.equal('bytes 7-9/26')
      expect(multi.headers['content-type']).to.equal('application/json')
      expect(multi.text).to.equal(single.text)
    })
  })
})
