// MFS crash safety: SIGKILL the daemon in the middle of `files/write` (a large streamed body) and of
// `files/cp`, restart on the same repo, and check the MFS root is consistent: it opens, every file
// under it reads back whole, what was there before is unchanged, and `repo verify` finds nothing corrupt.
import { expect } from 'chai'
import http from 'node:http'
import { existsSync, rmSync } from 'node:fs'
import { initTestRepo, startDaemon, waitExit, type Daemon } from '../helpers/daemon.js'
import { multipart, ndjsonLines as lines, rpc, streamPost } from '../helpers/rpc.js'
import { chachaBytes as bytesOf } from '../unit/core/unixfs-helpers.js'

/** `total` deterministic bytes in 1 MiB pieces */
function pieces (total: number): Buffer[] {
  const out: Buffer[] = []
  for (let off = 0; off < total; off += 1 << 20) out.push(bytesOf(`big/${off}`, Math.min(1 << 20, total - off)))
  return out
}

describe('MFS crash safety (SIGKILL, spawned daemon)', function () {
  this.timeout(300_000)
  let repo: string
  let d: Daemon | undefined
  const keep = bytesOf('keep', 300_000)

  before(async () => {
    repo = initTestRepo('tsipfs-mfs-crash-')
    d = await startDaemon({ repo })
    const mp = multipart([{ filename: 'keep', content: keep }])
    const w = await rpc(d.url, '/api/v0/files/write?arg=/keep/a.bin&create=true&parents=true', { body: mp.body, headers: { 'Content-Type': mp.contentType } })
    expect(w.status, w.body).to.equal(200)
  })

  after(async () => {
    if (d != null && d.proc.exitCode == null && d.proc.signalCode == null) await d.stop()
    if (existsSync(repo)) rmSync(repo, { recursive: true, force: true })
  })

  /** Every file under `dir` reads back with the size `files/stat` reports. */
  async function readAll (node: Daemon, dir: string): Promise<number> {
    const ls = await rpc(node.url, `/api/v0/files/ls?arg=${encodeURIComponent(dir)}&long=true`)
    expect(ls.status, ls.body).to.equal(200)
    let files = 0
    for (const e of (ls.json().Entries ?? []) as Array<{ Name: string, Type: number, Size: number }>) {
      const p = `${dir === '/' ? '' : dir}/${e.Name}`
      if (e.Type === 1) { files += await readAll(node, p); continue }
      const r = await rpc(node.url, `/api/v0/files/read?arg=${encodeURIComponent(p)}`)
      expect(r.status, p).to.equal(200)
      expect(r.trailers['x-stream-error'] ?? '', p).to.equal('')
      expect(r.bytes.length, p).to.equal(e.Size)
      files++
    }
    return files
  }

  async function restartAndCheck (): Promise<Daemon> {
    const next = await startDaemon({ repo })
    const st = await rpc(next.url, '/api/v0/files/stat?arg=/')
    expect(st.status, st.body).to.equal(200)
    const a = await rpc(next.url, '/api/v0/files/read?arg=/keep/a.bin')
    expect(a.status).to.equal(200)
    expect(Buffer.compare(a.bytes, keep), 'content written before the crash is unchanged').to.equal(0)
    expect(await readAll(next, '/')).to.be.greaterThan(0)
    const rv = await rpc(next.url, '/api/v0/repo/verify')
    expect(rv.status, rv.body).to.equal(200)
    expect(lines(rv.body).filter(r => r.Msg !== '' && r.Msg !== 'verify complete, all blocks validated.')).to.deep.equal([])
    return next
  }

  it('survives a kill during `files/write` of a large streamed file', async () => {
    const daemon = d as Daemon
    const total = 48 << 20
    let killed = false
    await streamPost(daemon.url, '/api/v0/files/write?arg=/big.bin&create=true', pieces(total), (sent) => {
      if (!killed && sent > total / 2) { killed = true; daemon.proc.kill('SIGKILL') }
    }, 'data')
    expect(killed).to.equal(true)
    await waitExit(daemon)
    d = await restartAndCheck()
  })

  it('survives a kill during `files/cp` of a directory into MFS', async () => {
    const daemon = d as Daemon
    const parts = Array.from({ length: 200 }, (_, n) => ({ filename: `dir/f${n}`, content: bytesOf(`cp ${n}`, 20_000) }))
    const mp = multipart([{ filename: 'dir', type: 'application/x-directory', content: '' }, ...parts])
    const added = await rpc(daemon.url, '/api/v0/add?pin=false', { body: mp.body, headers: { 'Content-Type': mp.contentType } })
    expect(added.status, added.body).to.equal(200)
    const root = added.ndjson().at(-1).Hash as string
    const req = http.request(new URL(`/api/v0/files/cp?arg=/ipfs/${root}&arg=/copy`, daemon.url), { method: 'POST', agent: false })
    req.on('error', () => {})
    req.end()
    await new Promise(resolve => setTimeout(resolve, 5))
    daemon.proc.kill('SIGKILL')
    await waitExit(daemon)
    d = await restartAndCheck()
    // /copy is either absent or whole
    const st = await rpc(d.url, '/api/v0/files/stat?arg=/copy')
    if (st.status === 200) expect(st.json().Hash).to.equal(root)
    else expect(st.body).to.include('file does not exist')
  })
})
