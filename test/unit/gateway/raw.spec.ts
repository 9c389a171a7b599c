// gateway.md §2.5: raw block responses (application/vnd.ipld.raw).
import { expect } from 'chai'
import { startGateway, type TestGateway } from './helpers.js'

const ROOT = 'bafybeie72edlprgtlwwctzljf6gkn2wnlrddqjbkxo3jomh4n7omwblxly'
const DIR = 'bafybeifaqksygmsbnqe76kwvxoqxtkzcwssq5jkhuo65ldtqiunr3bxlra'
const ASCII = 'bafkreihhpc5y2pqvl5rbe5uuyhqjouybfs3rvlmisccgzue2kkt5zq6upq'

describe('gateway: raw blocks (§2.5)', () => {
  let gw: TestGateway
  let dirBlock: Buffer
  before(async () => {
    gw = await startGateway({ cars: ['gateway-raw-block.car'] })
    const { CID } = await import('multiformats/cid')
    const chunks: Uint8Array[] = []
    for await (const c of gw.node.container.cradle.blockstore.get(CID.parse(DIR))) chunks.push(c)
    dirBlock = Buffer.concat(chunks)
  })
  after(async () => { await gw.stop() })

  it('?format=raw and Accept raw give the exact block, also by path', async () => {
    for (const [p, headers] of [
      [`/ipfs/${DIR}?format=raw`, {}],
      [`/ipfs/${DIR}`, { Accept: 'application/vnd.ipld.raw' }],
      [`/ipfs/${ROOT}/dir?format=raw`, {}]
    ] as const) {
      const res = await gw.get(p, { headers })
      expect(res.status, p).to.equal(200)
      expect(res.body.equals(dirBlock), p).to.equal(true)
    }
  })

  for (const p of [`/ipfs/${ASCII}`, `/ipfs/${ROOT}/dir/ascii.txt`]) {
    it(`raw headers for ${p}`, async () => {
      const res = await gw.get(p, { headers: { Accept: 'application/vnd.ipld.raw' } })
      expect(res.status).to.equal(200)
      expect(res.headers['content-type']).to.equal('application/vnd.ipld.raw')
      expect(res.headers['content-length']).to.equal('31')
      expect(res.headers['content-disposition']).to.equal(`attachment; filename="${ASCII}.bin"; filename*=UTF-8''${ASCII}.bin`)
      expect(res.headers['x-content-type-options']).to.equal('nosniff')
      expect(res.text).to.equal('hello application/vnd.ipld.raw\n')
      expect(res.headers.etag).to.equal(`"${ASCII}.raw"`)
      expect(res.headers['x-ipfs-path']).to.equal(p)
      expect(res.headers['x-ipfs-roots']).to.include(p.split('/')[2])
      const cc = res.headers['cache-control'] as string
      expect(cc).to.include('public').and.include('immutable')
      expect(Number(/max-age=(\d+)/.exec(cc)?.[1])).to.be.at.least(29030400)
    })
  }

  it('?filename= names the attachment', async () => {
    const res = await gw.get(`/ipfs/${ASCII}?format=raw&filename=foobar.bin`)
    expect(res.headers['content-disposition']).to.include('attachment;').and.include('filename="foobar.bin')
  })

  it('?format=raw wins over Accept car', async () => {
    const res = await gw.get(`/ipfs/${ASCII}?format=raw`, { headers: { Accept: 'application/vnd.ipld.car' } })
    expect(res.headers['content-type']).to.equal('application/vnd.ipld.raw')
  })

  it('serves the empty identity block bafkqaaa (the trustless gateway probe)', async () => {
    const res = await gw.get('/ipfs/bafkqaaa?format=raw')
    expect(res.status).to.equal(200)
    expect(res.body.length).to.equal(0)
    const head = await gw.get('/ipfs/bafkqaaa?format=raw', { method: 'HEAD' })
    expect(head.status).to.equal(200)
  })

  it('404s a block that is not in the store', async () => {
    const res = await gw.get('/ipfs/bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy?format=raw')
    expect(res.status).to.equal(404)
    expect(res.text).to.include('bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy')
  })

  it('304 for If-None-Match with the raw Etag', async () => {
    const res = await gw.get(`/ipfs/${ASCII}?format=raw`, { headers: { 'If-None-Match': `"${ASCII}.raw"` } })
    expect(res.status).to.equal(304)
  })
})
