// Crash safety of the group-commit log (core/blockstore/flatfs-log.ts): SIGKILL a daemon (durable flatfs, tsipfs's
// init default) while clients put small blocks concurrently; after a restart every acknowledged block reads back
// exact (the ones still only in the log come from its replay), `repo verify` is clean, and after a clean shutdown
// no log is left and Kubo finds every block. Kubo is built by scripts/kubo.sh when missing (never skipped).
import { expect } from 'chai'
import http from 'node:http'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { initTestRepo, startDaemon, waitExit, type Daemon } from '../helpers/daemon.js'
import { multipart, ndjsonLines as lines, rpc } from '../helpers/rpc.js'
import { KUBO_ENV, kuboBinary } from '../helpers/kubo.js'
import { LOG_FILES } from '../../core/blockstore/flatfs.js'

/** one block/put; resolves with the CID once acknowledged, undefined when the daemon went away first */
async function put (url: string, bytes: Buffer): Promise<string | undefined> {
  const { body, contentType } = multipart([{ filename: 'b', content: bytes }])
  return await new Promise((resolve) => {
    const req = http.request(new URL('/api/v0/block/put?cid-codec=raw', url), { method: 'POST', agent: false, headers: { 'Content-Type': contentType, 'Content-Length': body.length } }, (res) => {
      let text = ''
      res.on('data', (c: Buffer) => { text += c.toString() })
      res.on('end', () => {
        if (res.statusCode !== 200) { resolve(undefined); return }
        try { resolve(JSON.parse(text).Key) } catch { resolve(undefined) }
      })
      res.on('error', () => resolve(undefined))
    })
    req.on('error', () => resolve(undefined))
    req.end(body)
  })
}

describe('crash safety of concurrent block/put (group-commit log, SIGKILL)', function () {
  this.timeout(300_000)
  let repo: string
  let d: Daemon | undefined

  before(() => { repo = initTestRepo('tsipfs-crash-put-') })
  after(async () => {
    if (d != null && d.proc.exitCode == null && d.proc.signalCode == null) await d.stop()
    if (existsSync(repo)) rmSync(repo, { recursive: true, force: true })
  })

  it('keeps every acknowledged block across a kill, and hands Kubo a repo without a log after a clean stop', async () => {
    const daemon = await startDaemon({ repo })
    d = daemon
    const acked = new Map<string, Buffer>()
    let stop = false
    // 8 clients putting 1 KiB blocks; the kill comes while they are at it
    const clients = Array.from({ length: 8 }, async () => {
      while (!stop) {
        const bytes = randomBytes(1024)
        const cid = await put(daemon.url, bytes)
        if (cid === undefined) return
        acked.set(cid, bytes)
        if (acked.size >= 400 && !stop) { stop = true; daemon.proc.kill('SIGKILL') }
      }
    })
    await Promise.all(clients)
    expect(stop, 'killed while putting').to.equal(true)
    await waitExit(daemon)

    const next = await startDaemon({ repo })
    d = next
    for (const [cid, bytes] of acked) {
      const r = await rpc(next.url, `/api/v0/block/get?arg=${cid}`)
      expect(r.status, cid).to.equal(200)
      expect(Buffer.compare(r.bytes, bytes), cid).to.equal(0)
    }
    const rv = await rpc(next.url, '/api/v0/repo/verify')
    expect(rv.status, rv.body).to.equal(200)
    expect(lines(rv.body).at(-1)).to.deep.equal({ Msg: 'verify complete, all blocks validated.', Progress: 0 })
    await next.stop()

    const blocks = path.join(repo, 'blocks')
    expect(readdirSync(blocks).filter(n => LOG_FILES.includes(n)), 'no log after a clean stop').to.deep.equal([])
    const kubo = spawnSync(kuboBinary(), ['refs', 'local'], { env: { ...process.env, ...KUBO_ENV, IPFS_PATH: repo }, encoding: 'utf8', timeout: 120_000 })
    expect(kubo.status, kubo.stderr).to.equal(0)
    const local = new Set(kubo.stdout.split('\n').filter(l => l !== ''))
    for (const cid of acked.keys()) expect(local.has(cid), `Kubo lists ${cid}`).to.equal(true)
    const verify = spawnSync(kuboBinary(), ['repo', 'verify'], { env: { ...process.env, ...KUBO_ENV, IPFS_PATH: repo }, encoding: 'utf8', timeout: 120_000 })
    expect(verify.status, verify.stderr + verify.stdout).to.equal(0)
  })
})
