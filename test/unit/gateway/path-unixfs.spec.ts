// gateway.md §2.2: path gateway, UnixFS basics and caching.
import { expect } from 'chai'
import { startGateway, type TestGateway } from './helpers.js'

const R1 = 'bafybeib3ffl2teiqdncv3mkz4r23b5ctrwkzrrhctdbne6iboayxuxk5ui'
const R2 = 'bafybeih2w7hjocxjg6g2ku25hvmd53zj7og4txpby3vsusfefw5rrg5sii'
const R3 = 'bafybeiawdvhmjcz65x5egzx4iukxc72hg4woks6v6fvgyupiyt3oczk5ja'
const R4 = 'bafybeifq2rzpqnqrsdupncmkmhs3ckxxjhuvdcbvydkgvch3ms24k5lo7q'
const F = 'bafkreicysg23kiwv34eg2d7qweipxwosdo2py4ldv42nbauguluen5v6am'
const KEY = 'k51qzi5uqu5dlxdsdu5fpuu7h69wu4ohp32iwm9pdt9nq3y5rpn3ln9j12zfhe'
const IMMUTABLE = 'public, max-age=29030400, immutable'
const D = 'bafybeig6ka5mlwkl4subqhaiatalkcleo4jgnr3hqwvpmsqfca27cijp3i'
const SYMLINK_DIR = 'QmWvY6FaqFMS89YAQ9NAPjVP4WZKA1qbHbicc9HeSKQTgt'
const PCT_DIR = 'bafybeig675grnxcmshiuzdaz2xalm6ef4thxxds6o6ypakpghm5kghpc34'
const T_JSON = 'bafkreibrppizs3g7axs2jdlnjua6vgpmltv7k72l7v7sa6mmht6mne3qqe'

describe('gateway: path gateway, UnixFS and caching (§2.2)', () => {
  let gw: TestGateway
  before(async () => {
    gw = await startGateway({
      cars: ['gateway-cache/fixtures.car', 'dir_listing/fixtures.car', 'path_gateway_unixfs/symlink.car',
        'path_gateway_unixfs/dir-with-percent-encoded-filename.car', 'path_gateway_dag/gateway-json-cbor.car'],
      records: [`gateway-cache/${KEY}.ipns-record`]
    })
  })
  after(async () => { await gw.stop() })

  describe('/ipfs/', () => {
    it('serves a file by path with immutable caching, X-Ipfs-Path, X-Ipfs-Roots and a CID Etag', async () => {
      const p = `/ipfs/${R1}/root2/root3/root4/index.html`
      const res = await gw.get(p)
      expect(res.status).to.equal(200)
      expect(res.text).to.equal('hello\n')
      expect(res.headers['cache-control']).to.equal(IMMUTABLE)
      expect(res.headers['x-ipfs-path']).to.equal(p)
      expect(res.headers['x-ipfs-roots']).to.equal([R1, R2, R3, R4, F].join(','))
      expect(res.headers.etag).to.equal(`"${F}"`)
      expect(res.headers['content-type']).to.equal('text/html')
      expect(res.headers['content-length']).to.equal('6')
      expect(res.headers['accept-ranges']).to.equal('bytes')
    })

    it('serves index.html for a directory, with the directory CID as Etag', async () => {
      const res = await gw.get(`/ipfs/${R1}/root2/root3/root4/`)
      expect(res.status).to.equal(200)
      expect(res.text).to.equal('hello\n')
      expect(res.headers['x-ipfs-roots']).to.equal([R1, R2, R3, R4].join(','))
      expect(res.headers.etag).to.equal(`"${R4}"`)
      expect(res.headers['cache-control']).to.equal(IMMUTABLE)
      expect(res.headers['content-type']).to.equal('text/html')
    })

    it('lists a directory without index.html, with a DirIndex Etag and a one-week Cache-Control', async () => {
      const p = `/ipfs/${R1}/root2/root3/`
      const res = await gw.get(p)
      expect(res.status).to.equal(200)
      expect(res.headers['content-type']).to.equal('text/html')
      expect(res.headers['x-ipfs-path']).to.equal(p)
      expect(res.headers['x-ipfs-roots']).to.equal([R1, R2, R3].join(','))
      expect(res.headers.etag).to.match(new RegExp(`^"DirIndex-.*_CID-${R3}"$`))
      expect(res.headers['cache-control']).to.equal('public, max-age=604800, stale-while-revalidate=2678400')
      expect(res.text).to.include('Index of').and.include('>root4</a>').and.include('</html>')
    })

    it('answers ?format=raw on a path with the exact block', async () => {
      const res = await gw.get(`/ipfs/${R1}/root2/root3/root4/?format=raw`)
      expect(res.status).to.equal(200)
      expect(res.body.length).to.equal(58)
      const { blockstore } = gw.node.container.cradle
      const chunks: Uint8Array[] = []
      for await (const c of blockstore.get((await import('multiformats/cid')).CID.parse(R4))) chunks.push(c)
      expect(res.body.equals(Buffer.concat(chunks))).to.equal(true)
      expect(res.headers['cache-control']).to.equal(IMMUTABLE)
    })

    it('404s a missing link with the resolution error', async () => {
      const res = await gw.get(`/ipfs/${D}/i-do-not-exist`)
      expect(res.status).to.equal(404)
      expect(res.text).to.include(`failed to resolve /ipfs/${D}/i-do-not-exist`).and.include('i-do-not-exist')
      expect(res.headers['content-type']).to.equal('text/plain; charset=utf-8')
    })
  })

  describe('Cache-Control: only-if-cached', () => {
    const raw = `/ipfs/${R1}/root2/root3/root4/?format=raw`
    const missing = '/ipfs/QmYzfKSE55XCjD1MW128RfciAf2DViABhEiXfgVFMabSjN'
    it('HEAD and GET of cached content are 200', async () => {
      expect((await gw.get(raw, { method: 'HEAD', headers: { 'Cache-Control': 'only-if-cached' } })).status).to.equal(200)
      const res = await gw.get(raw, { headers: { 'Cache-Control': 'only-if-cached' } })
      expect(res.status).to.equal(200)
      expect(res.body.length).to.equal(58)
    })
    it('HEAD and GET of content not in the store are 412', async () => {
      const head = await gw.get(missing, { method: 'HEAD', headers: { 'Cache-Control': 'only-if-cached' } })
      expect(head.status).to.equal(412)
      const res = await gw.get(missing, { headers: { 'Cache-Control': 'only-if-cached' } })
      expect(res.status).to.equal(412)
      expect(res.text).to.equal(`"${missing}" not in local datastore\n`)
    })
  })

  describe('If-None-Match', () => {
    const file = `/ipfs/${R1}/root2/root3/root4/index.html`
    for (const [label, path, inm] of [
      ['the file Etag', file, `"${F}"`],
      ['the directory Etag on a dir served by index.html', `/ipfs/${R1}/root2/root3/root4/`, `"${R4}"`],
      ['a list whose third entry matches', file, `"fakeEtag1", "fakeEtag2", "${F}"`],
      ['a weak Etag', file, `W/"${F}"`],
      ['*', file, '*']
    ] as const) {
      it(`304 for ${label}`, async () => {
        const res = await gw.get(path, { headers: { 'If-None-Match': inm } })
        expect(res.status).to.equal(304)
        expect(res.body.length).to.equal(0)
      })
    }
    it('304 for a listing Etag read from an earlier response, strong and weak', async () => {
      const p = `/ipfs/${R1}/root2/root3/`
      const etag = (await gw.get(p)).headers.etag as string
      expect((await gw.get(p, { headers: { 'If-None-Match': etag } })).status).to.equal(304)
      expect((await gw.get(p, { headers: { 'If-None-Match': `W/${etag}` } })).status).to.equal(304)
    })
    it('200 when nothing matches', async () => {
      expect((await gw.get(file, { headers: { 'If-None-Match': '"other"' } })).status).to.equal(200)
    })
  })

  describe('/ipns/', () => {
    it('serves the same content with the /ipns/ path and a TTL-based Cache-Control', async () => {
      const p = `/ipns/${KEY}/root2/root3/root4/index.html`
      const res = await gw.get(p)
      expect(res.status).to.equal(200)
      expect(res.text).to.equal('hello\n')
      expect(res.headers['x-ipfs-path']).to.equal(p)
      expect(res.headers['x-ipfs-roots']).to.equal([R1, R2, R3, R4, F].join(','))
      expect(res.headers.etag).to.equal(`"${F}"`)
      expect(res.headers['cache-control']).to.match(/^public, max-age=\d+$/)
      expect(res.headers['last-modified']).to.be.a('string')
    })
    it('serves index.html and listings under /ipns/ with the same Etags', async () => {
      const dir = await gw.get(`/ipns/${KEY}/root2/root3/root4/`)
      expect(dir.status).to.equal(200)
      expect(dir.headers.etag).to.equal(`"${R4}"`)
      const listing = await gw.get(`/ipns/${KEY}/root2/root3/`)
      expect(listing.headers.etag).to.match(new RegExp(`_CID-${R3}"$`))
      expect(listing.headers['cache-control'] ?? 'public, max-age').to.match(/^public, max-age/)
    })
    it('304 for If-None-Match with the file CID', async () => {
      const res = await gw.get(`/ipns/${KEY}/root2/root3/root4/index.html`, { headers: { 'If-None-Match': `"${F}"` } })
      expect(res.status).to.equal(304)
    })
  })

  describe('symlinks', () => {
    it('lists both entries and serves the symlink target bytes, not followed', async () => {
      const listing = await gw.get(`/ipfs/${SYMLINK_DIR}/`)
      expect(listing.text).to.include('>foo<').and.include('>bar<')
      const res = await gw.get(`/ipfs/${SYMLINK_DIR}/bar`)
      expect(res.status).to.equal(200)
      expect(res.text).to.equal('foo')
      expect(res.headers['content-type']).to.equal('inode/symlink')
    })
    it('returns the exact root block for ?format=raw', async () => {
      const res = await gw.get(`/ipfs/${SYMLINK_DIR}?format=raw`)
      expect(res.status).to.equal(200)
      expect(res.body.length).to.equal(94)
    })
  })

  it('decodes a percent-encoded path exactly once and keeps + literal', async () => {
    const res = await gw.get(`/ipfs/${PCT_DIR}/Portugal%252C+Espa%C3%B1a=Peninsula%20Ib%C3%A9rica.txt`)
    expect(res.status).to.equal(200)
    expect(res.text).to.equal('hello from a percent encoded filename\n')
    expect(res.headers['content-type']).to.equal('text/plain; charset=utf-8')
  })

  describe('JSON stored as a raw UnixFS file', () => {
    const body = '{ "test": "i am a plain json file" }\n'
    for (const [label, query, accept] of [
      ['no Accept', '', undefined],
      ['Accept: application/json', '', 'application/json'],
      ['?format=json with Accept raw', '?format=json', 'application/vnd.ipld.raw']
    ] as const) {
      it(`is application/json with ${label}`, async () => {
        const res = await gw.get(`/ipfs/${T_JSON}${query}`, { headers: accept != null ? { Accept: accept } : {} })
        expect(res.status).to.equal(200)
        expect(res.headers['content-type']).to.equal('application/json')
        expect(res.text).to.equal(body)
      })
    }
  })

  describe('CORS', () => {
    const p = '/ipfs/bafkqabtimvwgy3yk/'
    const check = (h: Record<string, unknown>): void => {
      const list = (name: string): string[] => String(h[name]).split(',').map(s => s.trim())
      expect(h['access-control-allow-origin']).to.equal('*')
      expect(list('access-control-allow-methods')).to.include.members(['GET', 'HEAD', 'OPTIONS'])
      expect(list('access-control-allow-headers')).to.include.members(['Content-Type', 'Range', 'User-Agent', 'X-Requested-With'])
      expect(list('access-control-expose-headers')).to.include.members(['Content-Range', 'Content-Length', 'X-Ipfs-Path', 'X-Ipfs-Roots', 'X-Chunked-Output', 'X-Stream-Output'])
    }
    it('GET of an identity CID needs no stored block and carries the CORS headers', async () => {
      const res = await gw.get(p)
      expect(res.status).to.equal(200)
      expect(res.text).to.equal('hello\n')
      check(res.headers)
    })
    it('OPTIONS is a no-op with Allow and the CORS headers', async () => {
      const res = await gw.get(p, { method: 'OPTIONS' })
      expect(res.status).to.equal(200)
      expect(res.body.length).to.equal(0)
      expect(res.headers.allow).to.equal('GET, HEAD, OPTIONS')
      check(res.headers)
    })
    it('other methods are 405', async () => {
      const res = await gw.get(p, { method: 'POST' })
      expect(res.status).to.equal(405)
      expect(res.text).to.equal('Method POST not allowed: read only access\n')
    })
  })

  describe('HEAD', () => {
    it('sends the headers of GET without a body', async () => {
      const res = await gw.get(`/ipfs/${R1}/root2/root3/root4/index.html`, { method: 'HEAD' })
      expect(res.status).to.equal(200)
      expect(res.headers['content-length']).to.equal('6')
      expect(res.headers['content-type']).to.equal('text/html')
      expect(res.headers.etag).to.equal(`"${F}"`)
      expect(res.body.length).to.equal(0)
    })
  })
})
