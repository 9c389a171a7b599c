// What a person sees: headless Chromium loads a directory listing and an HTML page served by the
// gateway from CARs imported over the RPC API. Screenshots are kept in .test-artifacts/.
import { expect } from 'chai'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { startDaemon, ROOT, type Daemon } from '../helpers/daemon.js'
import { ensureDebs, skipWithReason } from '../helpers/debs.js'
import { rpc, multipart } from '../helpers/rpc.js'

let CHROMIUM: string | undefined
const FIXTURES = path.resolve(ROOT, '..', 'shared', 'fixtures', 'gateway-conformance')
const ARTIFACTS = path.join(ROOT, '.test-artifacts')

function chromium (args: string[]): { status: number | null, stdout: string, stderr: string } {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-chromium-'))
  try {
    const r = spawnSync(CHROMIUM as string, [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--user-data-dir=${profile}`, '--window-size=1024,768', ...args
    ], { encoding: 'utf8', timeout: 60_000 })
    return { status: r.status, stdout: r.stdout, stderr: r.stderr }
  } finally {
    rmSync(profile, { recursive: true, force: true })
  }
}

async function importCar (d: Daemon, file: string): Promise<string> {
  const mp = multipart([{ filename: path.basename(file), content: readFileSync(file) }])
  const r = await rpc(d.url, '/api/v0/dag/import?pin-roots=true', { body: mp.body, headers: { 'Content-Type': mp.contentType } })
  expect(r.status, r.body).to.equal(200)
  return r.ndjson()[0].Root.Cid['/']
}

describe('gateway in a browser (headless Chromium)', function () {
  this.timeout(120_000)
  let d: Daemon
  let gw: string

  before(async function () {
    this.timeout(900_000) // installing Debian's chromium on a fresh machine
    const missing = ensureDebs({ chromium: 'chromium' })
    if (missing != null) skipWithReason(this, missing)
    CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(p => existsSync(p)) ?? 'chromium'
    d = await startDaemon()
    gw = readFileSync(path.join(d.repo, 'gateway'), 'utf8').trim()
    mkdirSync(ARTIFACTS, { recursive: true })
  })
  after(async () => { await d?.stop() })

  it('shows a directory listing with names, sizes and CIDs', async () => {
    const root = await importCar(d, path.join(FIXTURES, 'dir_listing', 'fixtures.car'))
    const url = `${gw}/ipfs/${root}/%C4%85/%C4%99/`
    const dom = chromium(['--dump-dom', url])
    expect(dom.status, dom.stderr).to.equal(0)
    expect(dom.stdout).to.include('Index of')
    expect(dom.stdout).to.include('file-źł.txt')
    expect(dom.stdout).to.match(/class="ipfs-hash"/)
    const shot = path.join(ARTIFACTS, 'gateway-listing.png')
    const s = chromium([`--screenshot=${shot}`, url])
    expect(s.status, s.stderr).to.equal(0)
    expect(readFileSync(shot).subarray(1, 4).toString()).to.equal('PNG')
  })

  it('renders an HTML page served through index.html', async () => {
    const root = await importCar(d, path.join(FIXTURES, 'gateway-cache', 'fixtures.car'))
    const url = `${gw}/ipfs/${root}/root2/root3/root4/`
    const dom = chromium(['--dump-dom', url])
    expect(dom.status, dom.stderr).to.equal(0)
    expect(dom.stdout).to.match(/<body>[\s\S]*hello[\s\S]*<\/body>/)
    expect(dom.stdout).to.not.include('Index of')
    const shot = path.join(ARTIFACTS, 'gateway-index-html.png')
    const s = chromium([`--screenshot=${shot}`, url])
    expect(s.status, s.stderr).to.equal(0)
    expect(existsSync(shot)).to.equal(true)
  })
})
