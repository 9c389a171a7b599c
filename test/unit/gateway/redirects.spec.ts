// gateway.md §2.13: _redirects files, evaluated only on origin-isolated hosts (subdomain, DNSLink).
import { expect } from 'chai'
import { CID } from 'multiformats/cid'
import { dnslinkYaml, H, startGateway, SUBDOMAIN_CONFIG, type TestGateway } from './helpers.js'
import { matchRule, parseRedirects } from '../../../server/gateway/redirects.js'

const ROOT = 'QmQyqMY5vUBSbSxyitJqthgwZunCQjDVtNd8ggVCxzuPQ4'
const sub = (v0: string): string => `${CID.parse(v0).toV1().toString()}.ipfs.${H}`
const EXAMPLES = 'QmYBhLYDwVFvxos9h8CGU2ibaY66QNgv8hpfewxaQrPiZj'
const FORCED = 'QmU7ysGXwAtiV7aBarZASJsxKoKyKmd9Xrz2FFamSCbg8S'
const TOO_LARGE = 'QmQTfvjGmvTfxFpUcZNLdTLuKV227KJkGiN6xooHVeVZAS'
const NEWLINES = 'QmYzMrtPyBv7LKiEAGLLRPtvqm3SjQYLWxwWQ2vnpxQwRd'
const GOOD_CODES = 'QmWHn2TunA1g7gQ7q9rwAoWuot2hMpojZ6cZ9ERsNKm5gE'
const BAD_CODES = 'QmcBcFnKKqgpCVMxxGsriw9ByTVF6uDdKDMuEBq3m6f1bm'
const SPA = 'bafybeib5lboymwd6p2eo4qb2lkueaine577flvsjjeuevmp2nlio72xv5q'
const IMMUTABLE = 'public, max-age=29030400, immutable'

describe('gateway: _redirects (§2.13)', () => {
  let gw: TestGateway
  before(async () => {
    gw = await startGateway({
      cars: ['redirects_file/redirects.car', 'redirects_file/redirects-spa.car'],
      config: SUBDOMAIN_CONFIG,
      dnslink: {
        ...dnslinkYaml('redirects_file/dnslink.yml'),
        'dnslink-enabled-with-spa.example.org': `/ipfs/${SPA}`
      }
    })
  })
  after(async () => { await gw.stop() })

  describe('parsing and matching', () => {
    it('parses rules with the default 301 and rejects forced rules, bad codes and bad paths', () => {
      expect(parseRedirects(Buffer.from('# c\n/a /b\n/c /d 302\r\n'))).to.deep.equal([{ from: '/a', to: '/b', status: 301 }, { from: '/c', to: '/d', status: 302 }])
      expect(() => parseRedirects(Buffer.from('/a /b 301!'))).to.throw('parsing status "301!": forced redirects (or "shadowing") are not supported')
      expect(() => parseRedirects(Buffer.from('/a /b 999'))).to.throw('status code 999 is not supported')
      expect(() => parseRedirects(Buffer.from('a /b'))).to.throw("parsing 'from': path must begin with '/'")
      expect(() => parseRedirects(Buffer.from('/a/*/b /c'))).to.throw('path must end with asterisk')
      expect(() => parseRedirects(Buffer.from('/a'))).to.throw("missing 'to' path")
    })
    it('fills placeholders and splats', () => {
      expect(matchRule({ from: '/posts/:year/:month/:day/:title', to: '/articles/:year/:month/:day/:title', status: 301 }, '/posts/2022/01/01/hello-world')).to.equal('/articles/2022/01/01/hello-world')
      expect(matchRule({ from: '/splat/*', to: '/redirected-splat/:splat', status: 301 }, '/splat/one.html')).to.equal('/redirected-splat/one.html')
      expect(matchRule({ from: '/posts/:year', to: '/x', status: 301 }, '/posts/2022/01')).to.equal(undefined)
    })
  })

  describe('examples on a subdomain', () => {
    const host = sub(EXAMPLES)
    const get = async (p: string, headers: Record<string, string> = {}): ReturnType<TestGateway['get']> => await gw.get(p, { headers: { Host: host, ...headers } })
    for (const [p, status, location] of [
      ['/redirect-one', 301, '/one.html'],
      ['/301-redirect-one', 301, '/one.html'],
      ['/302-redirect-two', 302, '/two.html'],
      ['/posts/2022/01/01/hello-world', 301, '/articles/2022/01/01/hello-world'],
      ['/splat/one.html', 301, '/redirected-splat/one.html']
    ] as const) {
      it(`${p} → ${status} ${location}`, async () => {
        const res = await get(p)
        expect(res.status).to.equal(status)
        expect(res.headers.location).to.equal(location)
      })
    }
    it('keeps the query in the Location', async () => {
      const res = await get('/redirect-one?a=1')
      expect(res.headers.location).to.equal('/one.html?a=1')
    })
    it('/200-index is a rewrite', async () => {
      const res = await get('/200-index')
      expect(res.status).to.equal(200)
      expect(res.text).to.include('my index')
    })
    for (const [p, status, etag, body] of [
      ['/not-found/has-no-redirects-entry', 404, 'Qmd9GD7Bauh6N2ZLfNnYS3b7QVAijbud83b8GE8LPMNBBP', 'my 404'],
      ['/gone/has-no-redirects-entry', 410, 'QmSmR9NShZ89VEBrn9SBy7Xxvjw8Qe6XArD5GqtHvbtBM3', 'my 410'],
      ['/unavail/has-no-redirects-entry', 451, 'QmVQqj9oZig9tH3ENHo4bxV5pNgssUwFCXUjAJAVcZVbJG', 'my 451']
    ] as const) {
      it(`${p} → ${status} with its page`, async () => {
        const res = await get(p)
        expect(res.status).to.equal(status)
        expect(res.headers['cache-control']).to.equal(IMMUTABLE)
        expect(res.headers.etag).to.equal(`"${etag}"`)
        expect(res.headers['content-type']).to.equal('text/html')
        expect(res.text).to.include(body)
      })
    }
    it('/catch-all is rewritten to the index', async () => {
      const res = await get('/catch-all')
      expect(res.status).to.equal(200)
      expect(res.text).to.equal('my index\n')
    })
    it('existing files are served as they are', async () => {
      const res = await get('/one.html')
      expect(res.status).to.equal(200)
      expect(res.text).to.equal('my one\n')
    })
  })

  it('is not applied on the path gateway', async () => {
    const res = await gw.get(`/ipfs/${EXAMPLES}/redirect-one`)
    expect(res.status).to.equal(404)
  })

  describe('broken and special files', () => {
    it('forced redirects are a 500 parse error', async () => {
      const res = await gw.get('/not-found', { headers: { Host: sub(FORCED) } })
      expect(res.status).to.equal(500)
      expect(res.text).to.include('could not parse _redirects:')
    })
    it('a file over 64 KiB is a 500', async () => {
      const res = await gw.get('/not-found', { headers: { Host: sub(TOO_LARGE) } })
      expect(res.status).to.equal(500)
      expect(res.text).to.include('could not parse _redirects:').and.include('redirects file size cannot exceed')
    })
    it('CRLF line ends are fine', async () => {
      const res = await gw.get('/redirect-one', { headers: { Host: sub(NEWLINES) } })
      expect(res.status).to.equal(301)
      expect(res.headers.location).to.equal('/one.html')
    })
    it('good codes redirect', async () => {
      const res = await gw.get('/a301', { headers: { Host: sub(GOOD_CODES) } })
      expect(res.status).to.equal(301)
      expect(res.headers.location).to.equal('/b301')
    })
    it('rules are only read for missing paths', async () => {
      const res = await gw.get('/found.html', { headers: { Host: sub(BAD_CODES) } })
      expect(res.status).to.equal(200)
      expect(res.text).to.include('my found')
      expect(res.text).not.to.include('unsupported redirect status')
    })
  })

  describe('on a DNSLink host', () => {
    const host = 'dnslink-redirects-examples.example.org'
    it('redirects', async () => {
      const res = await gw.get('/redirect-one', { headers: { Host: host } })
      expect(res.status).to.equal(301)
      expect(res.headers.location).to.equal('/one.html')
    })
    it('serves the 404 page with a mutable Cache-Control and a Date', async () => {
      const res = await gw.get('/not-found/has-no-redirects-entry', { headers: { Host: host } })
      expect(res.status).to.equal(404)
      expect(res.headers.etag).to.equal('"Qmd9GD7Bauh6N2ZLfNnYS3b7QVAijbud83b8GE8LPMNBBP"')
      expect(res.headers['cache-control'] ?? '').not.to.include('immutable')
      expect(res.headers.date).to.be.a('string')
      expect(res.text).to.include('my 404')
    })
  })

  describe('SPA with If-None-Match', () => {
    for (const host of [`${SPA}.ipfs.${H}`, `dnslink--enabled--with--spa-example-org.ipns.${H}`, 'dnslink-enabled-with-spa.example.org']) {
      it(`rewrites and then answers 304 on ${host}`, async () => {
        const res = await gw.get('/missing-page', { headers: { Host: host, Accept: 'text/html' } })
        expect(res.status).to.equal(200)
        expect(res.text).to.equal('hello world\n')
        const etag = res.headers.etag as string
        expect(etag).to.be.a('string').and.not.equal('')
        const again = await gw.get('/missing-page', { headers: { Host: host, Accept: 'text/html', 'If-None-Match': etag } })
        expect(again.status).to.equal(304)
      })
    }
  })

  it('loads the whole fixture root', async () => {
    const res = await gw.get(`/ipfs/${ROOT}/`)
    expect(res.status).to.equal(200)
    expect(res.text).to.include('>examples</a>')
  })
})
