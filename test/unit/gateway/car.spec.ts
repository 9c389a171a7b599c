// gateway.md §2.6: CAR responses (dag-scope, entity-bytes, order, dups, Content-Type parameters).
import { expect } from 'chai'
import { CarBlockIterator } from '@ipld/car'
import * as dagPb from '@ipld/dag-pb'
import { CID } from 'multiformats/cid'
import { carParams } from '../../../server/gateway/car.js'
import { startGateway, type GatewayResponse, type TestGateway } from './helpers.js'

const ROOT = 'bafybeietjm63oynimmv5yyqay33nui4y4wx6u3peezwetxgiwvfmelutzu'
const SUBDIR = 'bafybeiggghzz6dlue3m6nb2dttnbrygxh3lrjl5764f2m4gq7dgzdt55o4'
const ASCII = 'bafkreifkam6ns4aoolg3wedr4uzrs3kvq66p4pecirz6y2vlrngla62mxm'
const HELLO = 'bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4'
const MIXED = 'bafybeidh6k2vzukelqtrjsmd4p52cpmltd2ufqrdtdg6yigi73in672fwu'
const MIXED_SUB = 'bafybeicnmple4ehlz3ostv2sbojz3zhh5q7tz5r2qkfdpqfilgggeen7xm'
const M = 'bafybeigcisqd7m5nf3qmuvjdbakl5bdnh4ocrmacaqkpuh77qjvggmt2sa'
const L = ['bafkreie5noke3mb7hqxukzcy73nl23k6lxszxi5w3dtmuwz62wnvkpsscm', 'bafkreih4ephajybraj6wnxsbwjwa77fukurtpl7oj7t7pfq545duhot7cq',
  'bafkreigu7buvm3cfunb35766dn7tmqyh2um62zcio63en2btvxuybgcpue', 'bafkreicll3huefkc3qnrzeony7zcfo7cr3nbx64hnxrqzsixpceg332fhe',
  'bafkreifst3pqztuvj57lycamoi7z34b4emf7gawxs74nwrc2c7jncmpaqm']
const HAMT = 'bafybeidbclfqleg2uojchspzd4bob56dqetqjsj27gy2cq3klkkgxtpn4i'
const SHARD_685 = 'bafybeifajm5xyg46n4hjxg7clq2f7vcn7eg7bn3yevylcemr6vd7mp6gta'
const SHARD_1 = 'bafybeiawjmzmi5c6v5h75nepfpx7jj5ns5t54girned3kilvakmhctxlxy'
const DOC_DIR = 'bafybeia264q44a3kmfc2otctzu4egp2k235o3t7mslz2yjraymp4nv6asi'
const DOC = 'bafyreidy4q6mmetut5jzc54ambsfnatbyoujmwbfzyyolqw24majazwgha'
const PARTIAL = 'QmYhmPjhFjYFyaoiuNzYv8WGavpSRDwdHWe5B4M5du5Rtk'
const DUPS_ROOT = 'bafybeihchr7vmgjaasntayyatmp5sv6xza57iy2h4xj7g46bpjij6yhrmy'

async function carOf (res: GatewayResponse): Promise<{ roots: string[], blocks: string[] }> {
  const it = await CarBlockIterator.fromBytes(res.body)
  const blocks: string[] = []
  for await (const b of it) blocks.push(b.cid.toString())
  return { roots: (await it.getRoots()).map(String), blocks }
}

describe('gateway: CAR responses (§2.6)', () => {
  let gw: TestGateway
  before(async () => {
    gw = await startGateway({
      cars: ['trustless_gateway_car/subdir-with-two-single-block-files.car', 'trustless_gateway_car/subdir-with-mixed-block-files.car',
        'trustless_gateway_car/single-layer-hamt-with-multi-block-files.car', 'trustless_gateway_car/dir-with-dag-cbor-with-links.car',
        'trustless_gateway_car/file-3k-and-3-blocks-missing-block.car', 'trustless_gateway_car/dir-with-duplicate-files.car']
    })
  })
  after(async () => { await gw.stop() })

  /** both ways of asking: ?format=car and Accept, each checked for the standard headers */
  async function both (path: string, query = ''): Promise<string[]> {
    const sep = path.includes('?') || query !== '' ? '&' : '?'
    const a = await gw.get(`${path}${query !== '' ? '?' + query : ''}${sep}format=car`.replace('?&', '?'))
    const b = await gw.get(`${path}${query !== '' ? '?' + query : ''}`, { headers: { Accept: 'application/vnd.ipld.car' } })
    for (const res of [a, b]) {
      expect(res.status).to.equal(200)
      expect(res.headers['x-content-type-options']).to.equal('nosniff')
      expect(res.headers['accept-ranges']).to.equal('none')
      expect(res.headers['content-type']).to.include('application/vnd.ipld.car').and.include('version=1')
      expect(res.headers['content-disposition']).to.match(/^attachment; filename=".*\.car"/)
      expect(res.headers.etag).to.be.a('string').and.match(/^W\/".+\.car\..+"$/)
    }
    const blocks = (await carOf(a)).blocks
    expect((await carOf(b)).blocks).to.deep.equal(blocks)
    return blocks
  }

  describe('pathing', () => {
    it('path blocks, then the terminal entity', async () => {
      expect(await both(`/ipfs/${ROOT}/subdir/ascii.txt`)).to.deep.equal([ROOT, SUBDIR, ASCII])
    })
    it('through a HAMT: root, the shard on the way, then the file', async () => {
      expect(await both(`/ipfs/${HAMT}/685.txt`)).to.deep.equal([HAMT, SHARD_685, M, ...L])
    })
    it('through dag-cbor', async () => {
      expect(await both(`/ipfs/${DOC}/files/single`)).to.deep.equal([DOC, HELLO])
    })
    it('a missing path answers the blocks that prove it, under the empty root', async () => {
      const res = await gw.get(`/ipfs/${ROOT}/subdir/i-do-not-exist?format=car`)
      expect(res.status).to.equal(200)
      const car = await carOf(res)
      expect(car.blocks).to.deep.equal([ROOT, SUBDIR])
      expect(car.roots).to.deep.equal(['bafkqaaa'])
    })
    it('names the file <root>_<last segment>.car and puts the terminal CID in the header', async () => {
      const res = await gw.get(`/ipfs/${ROOT}/subdir/ascii.txt?format=car`)
      expect(res.headers['content-disposition']).to.include(`filename="${ROOT}_ascii.txt.car"`)
      expect((await carOf(res)).roots).to.deep.equal([ASCII])
      expect(res.headers['x-ipfs-roots']).to.equal([ROOT, SUBDIR, ASCII].join(','))
    })
    it('404s when the root block is missing', async () => {
      const res = await gw.get('/ipfs/bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi?format=car')
      expect(res.status).to.equal(404)
    })
  })

  describe('dag-scope=block', () => {
    it('the path and the terminal block only', async () => {
      expect(await both(`/ipfs/${ROOT}/subdir`, 'dag-scope=block')).to.deep.equal([ROOT, SUBDIR])
      expect(await both(`/ipfs/${ROOT}/subdir/ascii.txt`, 'dag-scope=block')).to.deep.equal([ROOT, SUBDIR, ASCII])
      expect(await both(`/ipfs/${HAMT}/1.txt`, 'dag-scope=block')).to.deep.equal([HAMT, SHARD_1, M])
    })
  })

  describe('dag-scope=entity', () => {
    it('a directory is its block only', async () => {
      expect(await both(`/ipfs/${ROOT}`, 'dag-scope=entity')).to.deep.equal([ROOT])
    })
    it('a HAMT is all its shards in depth-first pre-order, without files', async () => {
      const { blockstore } = gw.node.container.cradle
      const expected: string[] = []
      const walk = async (cid: CID): Promise<void> => {
        expected.push(cid.toString())
        const chunks: Uint8Array[] = []
        for await (const c of blockstore.get(cid)) chunks.push(c)
        for (const l of dagPb.decode(Buffer.concat(chunks)).Links) if ((l.Name ?? '').length === 2) await walk(l.Hash)
      }
      await walk(CID.parse(HAMT))
      expect(expected.length).to.equal(237)
      expect(await both(`/ipfs/${HAMT}`, 'dag-scope=entity')).to.deep.equal(expected)
      expect(await both(`/ipfs/${HAMT}`, 'dag-scope=entity&entity-bytes=0:*')).to.deep.equal(expected)
    })
    it('files: every block', async () => {
      expect(await both(`/ipfs/${MIXED}/subdir/ascii.txt`, 'dag-scope=entity')).to.deep.equal([MIXED, MIXED_SUB, ASCII])
      expect(await both(`/ipfs/${MIXED}/subdir/multiblock.txt`, 'dag-scope=entity')).to.deep.equal([MIXED, MIXED_SUB, M, ...L])
    })
    it('dag-cbor: the document, not what it links to', async () => {
      expect(await both(`/ipfs/${DOC_DIR}/document`, 'dag-scope=entity')).to.deep.equal([DOC_DIR, DOC])
    })
  })

  describe('dag-scope=all', () => {
    it('every block, depth-first, links in order', async () => {
      expect(await both(`/ipfs/${MIXED}/subdir`)).to.deep.equal([MIXED, MIXED_SUB, ASCII, HELLO, M, ...L])
      expect(await both(`/ipfs/${MIXED}/subdir/multiblock.txt`, 'dag-scope=all')).to.deep.equal([MIXED, MIXED_SUB, M, ...L])
    })
  })

  describe('entity-bytes', () => {
    it('reads around a missing block', async () => {
      const a = await both(`/ipfs/${PARTIAL}`, 'dag-scope=entity&entity-bytes=0:1000')
      expect([...a].sort()).to.deep.equal([PARTIAL, 'QmPKt7ptM2ZYSGPUc8PmPT2VBkLDK3iqpG9TBJY7PCE9rF'].sort())
      const b = await both(`/ipfs/${PARTIAL}`, 'dag-scope=entity&entity-bytes=2200:*')
      expect([...b].sort()).to.deep.equal([PARTIAL, 'QmWXY482zQdwecnfBsj78poUUuPXvyw2JAFAEMw4tzTavV'].sort())
    })
    it('whole file with 0:*', async () => {
      expect(await both(`/ipfs/${MIXED}/subdir/multiblock.txt`, 'dag-scope=entity&entity-bytes=0:*')).to.deep.equal([MIXED, MIXED_SUB, M, ...L])
    })
    for (const [range, leaves] of [
      ['512:*', [2, 3, 4]], ['512:1023', [2, 3]], ['512:-256', [2, 3]], ['-5:*', [3, 4]],
      ['-9999:*', [0, 1, 2, 3, 4]], ['-9999:-3', [0, 1, 2, 3]], ['0:0', [0]]
    ] as const) {
      it(`entity-bytes=${range}`, async () => {
        expect(await both(`/ipfs/${M}`, `dag-scope=entity&entity-bytes=${range}`)).to.deep.equal([M, ...leaves.map(i => L[i])])
      })
    }
    it('rejects bad ranges with 400', async () => {
      expect((await gw.get(`/ipfs/${M}?format=car&entity-bytes=5:1`)).status).to.equal(400)
      expect((await gw.get(`/ipfs/${M}?format=car&entity-bytes=x`)).status).to.equal(400)
    })
    it('changes the Etag', async () => {
      const a = await gw.get(`/ipfs/${M}?format=car&dag-scope=entity&entity-bytes=0:1`)
      const b = await gw.get(`/ipfs/${M}?format=car&dag-scope=entity&entity-bytes=0:2`)
      const c = await gw.get(`/ipfs/${M}?format=car&dag-scope=entity`)
      expect(new Set([a.headers.etag, b.headers.etag, c.headers.etag]).size).to.equal(3)
    })
  })

  describe('order and duplicates', () => {
    const dupsY = [DUPS_ROOT, ASCII, ASCII, HELLO, M, ...L]
    it('dups=y repeats blocks', async () => {
      const res = await gw.get(`/ipfs/${DUPS_ROOT}`, { headers: { Accept: 'application/vnd.ipld.car; version=1; order=dfs; dups=y' } })
      expect(res.headers['content-type']).to.include('application/vnd.ipld.car').and.include('order=dfs').and.include('dups=y')
      expect((await carOf(res)).blocks).to.deep.equal(dupsY)
    })
    it('dups=n does not', async () => {
      const res = await gw.get(`/ipfs/${DUPS_ROOT}`, { headers: { Accept: 'application/vnd.ipld.car; version=1; order=dfs; dups=n' } })
      expect(res.headers['content-type']).to.include('dups=n')
      expect((await carOf(res)).blocks).to.deep.equal([DUPS_ROOT, ASCII, HELLO, M, ...L])
    })
    it('order=unk names an order and sends every block', async () => {
      const res = await gw.get(`/ipfs/${DUPS_ROOT}`, { headers: { Accept: 'application/vnd.ipld.car; version=1; order=unk' } })
      expect(res.headers['content-type']).to.include('order=')
      expect(new Set((await carOf(res)).blocks)).to.deep.equal(new Set([DUPS_ROOT, ASCII, HELLO, M, ...L]))
    })
    it('never writes identity blocks', async () => {
      const res = await gw.get('/ipfs/bafkqaf3imvwgy3zaneqgc3janfxgy2lomvscay3jmqfa', { headers: { Accept: 'application/vnd.ipld.car; dups=y' } })
      expect(res.status).to.equal(200)
      expect(res.headers['content-type']).to.include('dups=y')
      expect((await carOf(res)).blocks).to.deep.equal([])
    })
    it('honours Accept parameters when ?format=car matches', async () => {
      const res = await gw.get(`/ipfs/${DUPS_ROOT}?format=car`, { headers: { Accept: 'application/vnd.ipld.car; version=1; order=dfs; dups=y' } })
      expect((await carOf(res)).blocks).to.deep.equal(dupsY)
    })
    it('URL parameters win over Accept parameters', async () => {
      const a = await gw.get(`/ipfs/${DUPS_ROOT}?format=car&car-order=dfs`, { headers: { Accept: 'application/vnd.ipld.car; order=unk' } })
      expect(a.headers['content-type']).to.include('order=dfs')
      const b = await gw.get(`/ipfs/${DUPS_ROOT}?format=car&car-dups=y`, { headers: { Accept: 'application/vnd.ipld.car; dups=n' } })
      expect(b.headers['content-type']).to.include('dups=y')
    })
    it('defaults to version=1; order=dfs; dups=n', async () => {
      const res = await gw.get(`/ipfs/${DUPS_ROOT}?format=car`)
      expect(res.headers['content-type']).to.equal('application/vnd.ipld.car; version=1; order=dfs; dups=n')
    })
  })

  it('?format=car wins over Accept raw', async () => {
    const res = await gw.get(`/ipfs/${ROOT}?format=car`, { headers: { Accept: 'application/vnd.ipld.raw' } })
    expect(res.headers['content-type']).to.include('application/vnd.ipld.car')
  })

  it('rejects unsupported versions, scopes and orders with 400', async () => {
    expect((await gw.get(`/ipfs/${ROOT}?format=car&car-version=2`)).status).to.equal(400)
    expect((await gw.get(`/ipfs/${ROOT}?format=car&dag-scope=nope`)).status).to.equal(400)
    expect((await gw.get(`/ipfs/${ROOT}?format=car&car-order=bfs`)).status).to.equal(400)
    expect(() => carParams(new URLSearchParams('car-dups=x'), {})).to.throw('unsupported application/vnd.ipld.car dups parameter')
  })

  it('304 when If-None-Match names the CAR Etag', async () => {
    const etag = (await gw.get(`/ipfs/${ROOT}?format=car`)).headers.etag as string
    expect((await gw.get(`/ipfs/${ROOT}?format=car`, { headers: { 'If-None-Match': etag } })).status).to.equal(304)
  })

  it('ends the CAR at a block missing after the headers, with no RPC trailer (as Kubo)', async () => {
    const res = await gw.get(`/ipfs/${PARTIAL}?format=car`)
    expect(res.status).to.equal(200)
    expect(res.headers.trailer).to.equal(undefined)
    expect(res.trailers).to.deep.equal({})
    expect((await carOf(res)).blocks).to.deep.equal([PARTIAL, 'QmPKt7ptM2ZYSGPUc8PmPT2VBkLDK3iqpG9TBJY7PCE9rF'])
  })

  it('answers bafkqaaa with an empty CAR rooted at it', async () => {
    const res = await gw.get('/ipfs/bafkqaaa?format=car')
    const car = await carOf(res)
    expect(car.roots).to.deep.equal(['bafkqaaa'])
    expect(car.blocks).to.deep.equal([])
  })
})
