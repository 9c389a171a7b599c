// gateway.md §2.1: headers across response kinds (Cache-Control, Etag, X-Ipfs-Path/Roots, nosniff,
// Content-Disposition, Last-Modified from UnixFS mtime) and Gateway.HTTPHeaders.
import { expect } from 'chai'
import * as dagPb from '@ipld/dag-pb'
import { UnixFS } from 'ipfs-unixfs'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { contentDisposition } from '../../../server/gateway/http.js'
import { startGateway, type TestGateway } from './helpers.js'

const D = 'bafybeig6ka5mlwkl4subqhaiatalkcleo4jgnr3hqwvpmsqfca27cijp3i'
const FZ = 'bafkreialihlqnf5uwo4byh4n3cmwlntwqzxxs2fg5vanqdi3d7tb2l5xkm'
const DJ = 'baguqeeram5ujjqrwheyaty3w5gdsmoz6vittchvhk723jjqxk7hakxkd47xq'
const MTIME = new Date('2023-03-01T10:20:30Z')

describe('gateway: headers (§2.1)', () => {
  let gw: TestGateway
  let mtimeFile: CID
  let mtimeDir: CID
  before(async () => {
    gw = await startGateway({
      cars: ['dir_listing/fixtures.car', 'path_gateway_dag/dag-json-traversal.car'],
      config: { 'Gateway.HTTPHeaders': { 'X-Special-Header': ['so special :)'], 'Access-Control-Allow-Origin': ['https://example.net'] } }
    })
    // a UnixFS 1.5 file with an mtime, in a directory
    const fs = new UnixFS({ type: 'file', data: new TextEncoder().encode('<p>with mtime</p>'), mtime: { secs: BigInt(MTIME.getTime() / 1000) } })
    const fileBytes = dagPb.encode(dagPb.prepare({ Data: fs.marshal(), Links: [] }))
    mtimeFile = CID.createV1(dagPb.code, await sha256.digest(fileBytes))
    const dirBytes = dagPb.encode(dagPb.prepare({ Data: new UnixFS({ type: 'directory' }).marshal(), Links: [{ Name: 'page', Hash: mtimeFile, Tsize: fileBytes.length }] }))
    mtimeDir = CID.createV1(dagPb.code, await sha256.digest(dirBytes))
    const { blockstore } = gw.node.container.cradle
    await blockstore.put(mtimeFile, fileBytes)
    await blockstore.put(mtimeDir, dirBytes)
  })
  after(async () => { await gw.stop() })

  it('adds Gateway.HTTPHeaders to every response, keeping configured CORS values', async () => {
    for (const p of [`/ipfs/${FZ}`, '/nowhere', `/ipfs/${D}/missing`]) {
      const res = await gw.get(p)
      expect(res.headers['x-special-header'], p).to.equal('so special :)')
      expect(res.headers['access-control-allow-origin'], p).to.equal('https://example.net')
    }
  })

  it('X-Ipfs-Path keeps the trailing slash and sends UTF-8 bytes', async () => {
    const res = await gw.get(`/ipfs/${D}/%C4%85/%C4%99/`)
    expect(Buffer.from(res.headers['x-ipfs-path'] as string, 'latin1').toString('utf8')).to.equal(`/ipfs/${D}/ą/ę/`)
  })

  describe('Content-Disposition', () => {
    it('none on a deserialized file by default', async () => {
      const res = await gw.get(`/ipfs/${D}/%C4%85/%C4%99/file-%C5%BA%C5%82.txt`)
      expect(res.headers['content-disposition']).to.equal(undefined)
      expect(res.headers['content-type']).to.equal('text/plain; charset=utf-8')
    })
    it('inline with ?filename, attachment with &download=true; the name picks the type', async () => {
      const a = await gw.get(`/ipfs/${FZ}?filename=notes.md`)
      expect(a.headers['content-disposition']).to.equal(`inline; filename="notes.md"; filename*=UTF-8''notes.md`)
      expect(a.headers['content-type']).to.equal('text/markdown; charset=utf-8')
      const b = await gw.get(`/ipfs/${FZ}?filename=notes.md&download=true`)
      expect(b.headers['content-disposition']).to.equal(`attachment; filename="notes.md"; filename*=UTF-8''notes.md`)
    })
    it('escapes names as boxo does', () => {
      expect(contentDisposition('testтест.tar', 'attachment')).to.equal(`attachment; filename="test____.tar"; filename*=UTF-8''test%D1%82%D0%B5%D1%81%D1%82.tar`)
      expect(contentDisposition('a b;c.txt', 'inline')).to.equal(`inline; filename="a%20b%3Bc.txt"; filename*=UTF-8''a%20b%3Bc.txt`)
    })
  })

  describe('Etags', () => {
    it('per response kind', async () => {
      expect((await gw.get(`/ipfs/${FZ}`)).headers.etag).to.equal(`"${FZ}"`)
      expect((await gw.get(`/ipfs/${FZ}?format=raw`)).headers.etag).to.equal(`"${FZ}.raw"`)
      expect((await gw.get(`/ipfs/${FZ}?format=tar`)).headers.etag).to.equal(`W/"${FZ}.x-tar"`)
      expect((await gw.get(`/ipfs/${DJ}`)).headers.etag).to.equal(`"${DJ}.dag-json"`)
      expect((await gw.get(`/ipfs/${DJ}/`, { headers: { Accept: 'text/html' } })).headers.etag).to.match(/^"DagIndex-.+_CID-/)
      expect((await gw.get(`/ipfs/${D}/`)).headers.etag).to.match(new RegExp(`^"DirIndex-.+_CID-${D}"$`))
      expect((await gw.get(`/ipfs/${D}?format=car`)).headers.etag).to.match(new RegExp(`^W/"${D}\\.car\\.`))
    })
  })

  describe('nosniff', () => {
    it('on raw, CAR, TAR and codec responses', async () => {
      for (const q of ['?format=raw', '?format=car', '?format=tar']) {
        expect((await gw.get(`/ipfs/${FZ}${q}`)).headers['x-content-type-options'], q).to.equal('nosniff')
      }
    })
  })

  describe('Last-Modified from UnixFS mtime', () => {
    it('is sent for a file with an mtime', async () => {
      const res = await gw.get(`/ipfs/${mtimeDir}/page`)
      expect(res.status).to.equal(200)
      expect(res.text).to.equal('<p>with mtime</p>')
      expect(res.headers['last-modified']).to.equal(MTIME.toUTCString())
      expect(res.headers['content-type']).to.equal('text/html')
    })
    it('If-Modified-Since at or after the mtime is a 304, before it a 200', async () => {
      const later = await gw.get(`/ipfs/${mtimeDir}/page`, { headers: { 'If-Modified-Since': new Date(MTIME.getTime() + 1000).toUTCString() } })
      expect(later.status).to.equal(304)
      expect(later.headers.etag).to.equal(`"${mtimeFile.toString()}"`)
      const earlier = await gw.get(`/ipfs/${mtimeDir}/page`, { headers: { 'If-Modified-Since': new Date(MTIME.getTime() - 1000).toUTCString() } })
      expect(earlier.status).to.equal(200)
    })
    it('is not sent for /ipfs/ content without an mtime', async () => {
      expect((await gw.get(`/ipfs/${FZ}`)).headers['last-modified']).to.equal(undefined)
    })
  })

  it('no Cache-Control on DAG HTML previews, the one-week value on listings', async () => {
    expect((await gw.get(`/ipfs/${DJ}/`, { headers: { Accept: 'text/html' } })).headers['cache-control']).to.equal(undefined)
    expect((await gw.get(`/ipfs/${D}/`)).headers['cache-control']).to.equal('public, max-age=604800, stale-while-revalidate=2678400')
  })
})
