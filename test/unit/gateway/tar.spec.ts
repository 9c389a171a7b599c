// gateway.md §2.9: TAR responses (IPIP-0288).
import http from 'node:http'
import { expect } from 'chai'
import sinon from 'sinon'
import { buildRepeatedDag, type RepeatedDag } from '../../helpers/repeated-dag.js'
import { extract } from 'it-tar'
import { startGateway, type GatewayResponse, type TestGateway } from './helpers.js'

const D = 'bafybeig6ka5mlwkl4subqhaiatalkcleo4jgnr3hqwvpmsqfca27cijp3i'
const FZ = 'bafkreialihlqnf5uwo4byh4n3cmwlntwqzxxs2fg5vanqdi3d7tb2l5xkm'
const INSIDE = 'bafybeibfevfxlvxp5vxobr5oapczpf7resxnleb7tkqmdorc4gl5cdva3y'
const OUTSIDE = 'bafybeicaj7kvxpcv4neaqzwhrqqmdstu4dhrwfpknrgebq6nzcecfucvyu'
const DJ = 'baguqeeram5ujjqrwheyaty3w5gdsmoz6vittchvhk723jjqxk7hakxkd47xq'

async function entries (res: GatewayResponse): Promise<Map<string, { type?: string, body: string }>> {
  const out = new Map<string, { type?: string, body: string }>()
  for await (const entry of extract()((async function * () { yield res.body })())) {
    const chunks: Uint8Array[] = []
    for await (const c of entry.body) chunks.push(c.subarray())
    out.set(entry.header.name, { type: entry.header.type, body: Buffer.concat(chunks).toString('utf8') })
  }
  return out
}

describe('gateway: TAR (§2.9)', () => {
  let gw: TestGateway
  before(async () => {
    gw = await startGateway({ cars: ['path_gateway_tar/fixtures.car', 'path_gateway_tar/inside-root.car', 'path_gateway_tar/outside-root.car', 'path_gateway_dag/dag-json-traversal.car'] })
  })
  after(async () => { await gw.stop() })

  it('a file: an entry named by its CID, with ?format=tar and with Accept', async () => {
    for (const [q, h] of [['?format=tar', {}], ['', { Accept: 'application/x-tar' }]] as const) {
      const res = await gw.get(`/ipfs/${FZ}${q}`, { headers: h })
      expect(res.status).to.equal(200)
      expect(res.headers['content-disposition']).to.include('attachment;')
      expect(res.headers.etag).to.include(`W/"${FZ}.x-tar`)
      expect(res.headers['content-type']).to.include('application/x-tar')
      expect(res.headers['x-content-type-options']).to.equal('nosniff')
      const tar = await entries(res)
      expect([...tar.keys()]).to.deep.equal([FZ])
      expect(tar.get(FZ)?.body).to.equal('I am a txt file on path with utf8\n')
    }
  })

  it('a directory: <root>/<path> entries with non-ASCII names (PAX)', async () => {
    const res = await gw.get(`/ipfs/${D}?format=tar`)
    const tar = await entries(res)
    expect(tar.get(`${D}/ą/ę/file-źł.txt`)?.body).to.equal('I am a txt file on path with utf8\n')
    expect(tar.get(`${D}/ą`)?.type).to.equal('directory')
    expect(tar.get(`${D}/api/file.txt`)?.body).to.equal('I am a txt file in confusing /api dir\n')
  })

  it('?filename with non-ASCII characters', async () => {
    const res = await gw.get(`/ipfs/${FZ}?filename=${encodeURIComponent('testтест.tar')}&format=tar`)
    expect(res.headers['content-disposition']).to.include(`attachment; filename="test____.tar"; filename*=UTF-8''test%D1%82%D0%B5%D1%81%D1%82.tar`)
  })

  it('refuses entries that leave the root, before sending anything', async () => {
    const res = await gw.get(`/ipfs/${OUTSIDE}?format=tar`)
    expect(res.status).to.equal(500)
    expect(res.text).to.include('relative UnixFS paths outside the root are not allowed')
  })

  it('cleans paths that stay inside the root', async () => {
    const res = await gw.get(`/ipfs/${INSIDE}?format=tar`)
    expect(res.status).to.equal(200)
    const tar = await entries(res)
    expect(tar.get(`${INSIDE}/foobar/file`)?.body).to.equal('Hello, world!\n')
  })

  it('406 for content that is not UnixFS', async () => {
    const res = await gw.get(`/ipfs/${DJ}?format=tar`)
    expect(res.status).to.equal(406)
  })
})

describe('gateway: TAR of a DAG with billions of paths', () => {
  let gw: TestGateway
  let dag: RepeatedDag
  before(async () => {
    gw = await startGateway()
    dag = await buildRepeatedDag(gw.node.container.cradle.blockstore, 40, 2)
  })
  after(async () => { await gw.stop() })

  it('checks each directory once and streams: the first entries arrive, and the client can leave', async () => {
    const reads = sinon.spy(gw.node.container.cradle.blockstore, 'get')
    const first = await new Promise<{ status: number, bytes: Buffer }>((resolve, reject) => {
      const req = http.get(`${gw.url}/ipfs/${dag.root.toString()}?format=tar`, res => {
        const chunks: Buffer[] = []
        let n = 0
        res.on('data', (c: Buffer) => {
          chunks.push(c)
          n += c.length
          if (n >= 256 * 1024) { req.destroy(); resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks) }) }
        })
        res.on('error', () => {})
      })
      req.on('error', err => { if (!req.destroyed) reject(err) })
    })
    reads.restore()
    expect(first.status).to.equal(200)
    const base = dag.root.toString()
    // the tar starts with the root, then goes depth first
    expect(first.bytes.subarray(0, base.length).toString()).to.equal(base)
    expect(first.bytes.includes(Buffer.from(`${base}/e000/e000/e000`))).to.equal(true)
    // the check read each of the 41 blocks about once, not 2^40 paths
    expect(reads.callCount).to.be.below(2000)
  })

  it('the gateway keeps serving after the client left', async () => {
    const res = await gw.get(`/ipfs/${dag.file.toString()}`)
    expect(res.status).to.equal(200)
    expect(res.text).to.equal('leaf\n')
  })
})
