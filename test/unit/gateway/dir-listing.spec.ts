// gateway.md §2.3: directory handling and HTML listings (path, subdomain and DNSLink hosts).
import { expect } from 'chai'
import { dnslinkYaml, H, startGateway, SUBDOMAIN_CONFIG, type TestGateway } from './helpers.js'

const D = 'bafybeig6ka5mlwkl4subqhaiatalkcleo4jgnr3hqwvpmsqfca27cijp3i'
const FZ = 'bafkreialihlqnf5uwo4byh4n3cmwlntwqzxxs2fg5vanqdi3d7tb2l5xkm'
const DIR = 'bafybeiht6dtwk3les7vqm6ibpvz6qpohidvlshsfyr7l5mpysdw2vmbbhe'
const DNSLINK_HOST = 'dnslink-dir-listing.example.org'
const SUB = `${D}.ipfs.${H}`

describe('gateway: directories and HTML listings (§2.3)', () => {
  let gw: TestGateway
  before(async () => {
    gw = await startGateway({
      cars: ['dir_listing/fixtures.car', 'subdomain_gateway/fixtures.car'],
      config: SUBDOMAIN_CONFIG,
      dnslink: dnslinkYaml('dir_listing/dnslink.yml')
    })
  })
  after(async () => { await gw.stop() })

  describe('missing trailing slash', () => {
    it('301 on the path gateway, with the path escaped and the query kept', async () => {
      const res = await gw.get(`/ipfs/${D}/%C4%85/%C4%99`)
      expect(res.status).to.equal(301)
      expect(res.headers.location).to.equal(`/ipfs/${D}/%C4%85/%C4%99/`)
      const q = await gw.get(`/ipfs/${D}/%C4%85/%C4%99?a=b`)
      expect(q.headers.location).to.equal(`/ipfs/${D}/%C4%85/%C4%99/?a=b`)
    })
    it('301 relative to the host on subdomain and DNSLink hosts', async () => {
      for (const host of [SUB, DNSLINK_HOST]) {
        const res = await gw.get('/%C4%85/%C4%99', { headers: { Host: host } })
        expect(res.status, host).to.equal(301)
        expect(res.headers.location, host).to.equal('/%C4%85/%C4%99/')
      }
    })
  })

  describe('path gateway listing', () => {
    it('has breadcrumbs, a parent link, entry links and double-escaped ?filename hash links', async () => {
      const res = await gw.get(`/ipfs/${D}/%C4%85/%C4%99/`)
      expect(res.status).to.equal(200)
      expect(res.headers['content-type']).to.equal('text/html')
      expect(res.headers.etag).to.include('"DirIndex-')
      expect(res.text).to.include('Index of')
      expect(res.text).to.include(`/ipfs/<a href="/ipfs/${D}">${D}</a>/<a href="/ipfs/${D}/%C4%85">ą</a>/<a href="/ipfs/${D}/%C4%85/%C4%99">ę</a>`)
      expect(res.text).to.include(`<a href="/ipfs/${D}/%C4%85/%C4%99/..">..</a>`)
      expect(res.text).to.include(`<a href="/ipfs/${D}/%C4%85/%C4%99/file-%C5%BA%C5%82.txt">file-źł.txt</a>`)
      expect(res.text).to.include(`<a class="ipfs-hash" translate="no" href="/ipfs/${FZ}?filename=file-%25C5%25BA%25C5%2582.txt">`)
    })
    it('shows sizes and the CID, and offers TAR and CAR downloads', async () => {
      const res = await gw.get(`/ipfs/${D}/%C4%85/%C4%99/`)
      expect(res.text).to.include('34 B')
      expect(res.text).to.include('bafybeih24awytf2cmnuycs4nslllfrdzhd6yliyzgd7mxwuxcgv2gm5mda')
      expect(res.text).to.include('href="?format=tar"').and.include('href="?format=car"')
    })
    it('has no back link at the content root', async () => {
      const res = await gw.get(`/ipfs/${D}/`)
      expect(res.text).to.include('Index of')
      expect(res.text).not.to.include(`<a href="/ipfs/${D}/">..</a>`)
      expect(res.text).not.to.include('>..</a>')
    })
    it('answers HEAD with the listing headers and no body', async () => {
      const res = await gw.get(`/ipfs/${D}/`, { method: 'HEAD' })
      expect(res.status).to.equal(200)
      expect(res.headers['content-type']).to.equal('text/html')
      expect(res.headers.etag).to.include('"DirIndex-')
      expect(res.body.length).to.equal(0)
    })
    it('escapes names in HTML', async () => {
      const res = await gw.get(`/ipfs/${D}/`)
      expect(res.text).to.include('>ą</a>')
      expect(res.text).not.to.match(/<script/i)
    })
  })

  describe('subdomain listing', () => {
    it('links entries relative to the host and breadcrumbs to the path gateway on the parent domain', async () => {
      const res = await gw.get('/%C4%85/%C4%99/', { headers: { Host: SUB } })
      expect(res.status).to.equal(200)
      expect(res.text).to.include('<a href="/%C4%85/%C4%99/..">..</a>')
      expect(res.text).to.include(`/ipfs/<a href="//${H}/ipfs/${D}">${D}</a>/<a href="//${H}/ipfs/${D}/%C4%85">ą</a>/<a href="//${H}/ipfs/${D}/%C4%85/%C4%99">ę</a>`)
      expect(res.text).to.include('<a href="/%C4%85/%C4%99/file-%C5%BA%C5%82.txt">file-źł.txt</a>')
      expect(res.text).to.include(`<a class="ipfs-hash" translate="no" href="//${H}/ipfs/${FZ}?filename=file-%25C5%25BA%25C5%2582.txt">`)
    })
    it('has no back link at the root', async () => {
      const res = await gw.get('/', { headers: { Host: SUB } })
      expect(res.status).to.equal(200)
      expect(res.text).not.to.include('<a href="/">..</a>')
    })
  })

  describe('DNSLink listing', () => {
    it('uses host-relative links, DNSLink breadcrumbs and cid.ipfs.tech hash links', async () => {
      const res = await gw.get('/%C4%85/%C4%99/', { headers: { Host: DNSLINK_HOST } })
      expect(res.status).to.equal(200)
      expect(res.text).to.include('<a href="/%C4%85/%C4%99/..">..</a>')
      expect(res.text).to.include(`/ipns/<a href="//${DNSLINK_HOST}/">${DNSLINK_HOST}</a>/<a href="//${DNSLINK_HOST}/%C4%85">ą</a>/<a href="//${DNSLINK_HOST}/%C4%85/%C4%99">ę</a>`)
      expect(res.text).to.include('<a href="/%C4%85/%C4%99/file-%C5%BA%C5%82.txt">file-źł.txt</a>')
      expect(res.text).to.include(`<a class="ipfs-hash" translate="no" href="https://cid.ipfs.tech/#${FZ}" target="_blank" rel="noreferrer noopener">`)
    })
    it('has no back link at the root', async () => {
      const res = await gw.get('/', { headers: { Host: DNSLINK_HOST } })
      expect(res.status).to.equal(200)
      expect(res.text).to.include('Index of')
      expect(res.text).not.to.include('<a href="/">..</a>')
    })
  })

  describe('a content root that holds a directory named ipfs (testdirlisting)', () => {
    const host = `${DIR}.ipfs.${H}`
    it('lists the root with host-relative links', async () => {
      const res = await gw.get('/', { headers: { Host: host } })
      expect(res.text).to.include('<a href="/hello">hello</a>').and.include('<a href="/ipfs">ipfs</a>')
    })
    it('marks each row with a type icon: folders as folders, files by extension (boxo ipfs-<ext>)', async () => {
      const res = await gw.get('/', { headers: { Host: host } })
      const row = (name: string): string => res.text.split('<tr>').find(r => r.includes(`<a href="/${name}">${name}</a>`)) ?? ''
      expect(row('ipfs')).to.include('<td class="type-icon" title="Directory"><span class="ipfs-_folder">')
      expect(row('hello')).to.include('<td class="type-icon" title="File"><span class="ipfs-_blank">')
      const sub = await gw.get('/ipfs/', { headers: { Host: host } })
      const file = sub.text.split('<tr>').find(r => r.includes('>file.txt</a>')) ?? ''
      expect(file).to.include('<span class="ipfs-txt">')
      expect(sub.text.split('<tr>').find(r => r.includes('>ipns</a>'))).to.include('ipfs-_folder')
    })
    it('lists /ipfs/ipns/ inside the content root', async () => {
      const res = await gw.get('/ipfs/ipns/', { headers: { Host: host } })
      expect(res.status).to.equal(200)
      expect(res.text).to.include('<a href="/ipfs/ipns/..">..</a>')
      expect(res.text).to.include('<a href="/ipfs/ipns/bar">bar</a>')
      expect(res.text).to.include(`/ipfs/<a href="//${H}/ipfs/${DIR}">${DIR}</a>/<a href="//${H}/ipfs/${DIR}/ipfs">ipfs</a>/<a href="//${H}/ipfs/${DIR}/ipfs/ipns">ipns</a>`)
    })
    it('serves files under the directory named ipfs', async () => {
      expect((await gw.get('/ipfs/ipns/bar', { headers: { Host: host } })).text).to.equal('text-file-content\n')
      expect((await gw.get('/ipfs/file.txt', { headers: { Host: host } })).text).to.equal('I am a txt file\n')
    })
  })
})
