// Crash safety: SIGKILL the daemon in the middle of `dag import` of a large CAR, of `pin add` and of
// `repo gc`, restart it on the same repo, and check the repo opens (the stale repo.lock is taken
// over), the pins made before are intact, `pin verify` finds no broken pin and `repo verify` no
// corrupt block.
import { expect } from 'chai'
import http from 'node:http'
import { readFileSync, rmSync, existsSync } from 'node:fs'
import path from 'node:path'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import * as dagCbor from '@ipld/dag-cbor'
import { initTestRepo, startDaemon, waitExit, type Daemon } from '../helpers/daemon.js'
import { multipart, ndjsonLines as lines, rpc, streamPost } from '../helpers/rpc.js'
import { chachaBytes as bytesOf } from '../unit/core/unixfs-helpers.js'
import { carSection, carV1Header } from '../../plugins/dag/car.js'

interface Car { root: CID, parts: Uint8Array[], size: number, blocks: number }

/** A CAR of `count` raw blocks of `size` bytes under a dag-cbor tree of fan-out 256. */
async function makeCar (seed: string, count: number, size: number): Promise<Car> {
  const parts: Uint8Array[] = []
  let level: CID[] = []
  for (let i = 0; i < count; i++) {
    const bytes = bytesOf(`${seed}/${i}`, size)
    const cid = CID.createV1(0x55, await sha256.digest(bytes))
    parts.push(...carSection(cid, bytes))
    level.push(cid)
  }
  let blocks = count
  while (level.length > 1) {
    const next: CID[] = []
    for (let i = 0; i < level.length; i += 256) {
      const bytes = dagCbor.encode({ links: level.slice(i, i + 256) })
      const cid = CID.createV1(0x71, await sha256.digest(bytes))
      parts.push(...carSection(cid, bytes))
      next.push(cid)
      blocks++
    }
    level = next
  }
  const root = level[0]
  parts.unshift(carV1Header([root]))
  return { root, parts, size: parts.reduce((n, p) => n + p.length, 0), blocks }
}

function kill (d: Daemon): void {
  d.proc.kill('SIGKILL')
}

describe('crash safety (SIGKILL, spawned daemon)', function () {
  this.timeout(300_000)
  let repo: string
  let d: Daemon | undefined
  /** pins made before the crashes: cid -> type */
  const pinsBefore = new Map<string, string>()

  before(async () => {
    repo = initTestRepo('tsipfs-crash-')
    d = await startDaemon({ repo })
    // a few pins to keep: files, a directory, a direct pin
    for (let n = 0; n < 3; n++) {
      const { body, contentType } = multipart([{ filename: `f${n}`, content: bytesOf(`keep ${n}`, 300_000 * n + 10) }])
      const r = await rpc(d.url, '/api/v0/add', { body, headers: { 'Content-Type': contentType } })
      expect(r.status, r.body).to.equal(200)
    }
    const { body, contentType } = multipart([{ filename: 'direct', content: 'direct pin\n' }])
    const added = (await rpc(d.url, '/api/v0/add?pin=false', { body, headers: { 'Content-Type': contentType } })).ndjson()
    expect((await rpc(d.url, `/api/v0/pin/add?arg=${added[0].Hash as string}&recursive=false`)).status).to.equal(200)
    const ls = (await rpc(d.url, '/api/v0/pin/ls?type=all')).json()
    for (const [cid, v] of Object.entries(ls.Keys as Record<string, { Type: string }>)) pinsBefore.set(cid, v.Type)
    expect([...pinsBefore.values()].filter(t => t === 'recursive').length).to.equal(4) // 3 files + the empty dir
  })

  after(async () => {
    if (d != null && d.proc.exitCode == null && d.proc.signalCode == null) await d.stop()
    if (existsSync(repo)) rmSync(repo, { recursive: true, force: true })
  })

  /** Restart on the same repo; the pins made before are there and nothing is broken or corrupt. */
  async function restartAndCheck (): Promise<Daemon> {
    expect(existsSync(path.join(repo, 'repo.lock')), 'the killed daemon left its lock').to.equal(true)
    const next = await startDaemon({ repo })
    const ls = (await rpc(next.url, '/api/v0/pin/ls?type=all')).json()
    for (const [cid, type] of pinsBefore) expect(ls.Keys[cid]?.Type, cid).to.equal(type)
    const verify = await rpc(next.url, '/api/v0/pin/verify')
    expect(verify.status).to.equal(200)
    expect(verify.body, 'pin verify: no broken pin').to.equal('')
    const rv = await rpc(next.url, '/api/v0/repo/verify')
    expect(rv.status, rv.body).to.equal(200)
    const rows = lines(rv.body)
    expect(rows.filter(r => r.Msg !== '' && r.Msg !== 'verify complete, all blocks validated.')).to.deep.equal([])
    expect(rows.at(-1)).to.deep.equal({ Msg: 'verify complete, all blocks validated.', Progress: 0 })
    expect(rv.trailers['x-stream-error'] ?? '').to.equal('')
    return next
  }

  it('survives a kill during `dag import` of a large CAR', async () => {
    const car = await makeCar('big', 384, 256 * 1024) // ~96 MiB
    const daemon = d as Daemon
    let killed = false
    const res = await streamPost(daemon.url, '/api/v0/dag/import', car.parts, (sent) => {
      if (!killed && sent > car.size / 2) { killed = true; kill(daemon) }
    })
    expect(killed).to.equal(true)
    expect(res.error ?? res.status).to.not.equal(200)
    await waitExit(daemon)
    d = await restartAndCheck()
    // the import can be run again to the end
    const r = await streamPost(d.url, '/api/v0/dag/import', car.parts, () => {})
    expect(r.status, r.body).to.equal(200)
    expect(lines(r.body ?? '')[0]).to.deep.equal({ Root: { Cid: { '/': car.root.toString() }, PinErrorMsg: '' } })
  })

  it('survives a kill during `pin add`', async () => {
    // a DAG of many small blocks, imported unpinned, then pinned (the walk reads every block)
    const car = await makeCar('many', 20_000, 64)
    const imported = await streamPost((d as Daemon).url, '/api/v0/dag/import?pin-roots=false', car.parts, () => {})
    expect(imported.status, imported.body).to.equal(200)
    const daemon = d as Daemon
    // --progress: a progress row proves the pin is under way; kill on the first one
    let midway = false
    await new Promise<void>((resolve) => {
      const req = http.request(new URL(`/api/v0/pin/add?arg=${car.root.toString()}&progress=true`, daemon.url), { method: 'POST', agent: false }, (res) => {
        let buf = ''
        res.on('data', (c: Buffer) => {
          buf += c.toString()
          if (!midway && lines(buf.slice(0, buf.lastIndexOf('\n') + 1)).some(r => r.Pins == null && r.Progress > 0)) {
            midway = true
            kill(daemon)
          }
        })
        res.on('error', () => resolve())
        res.on('close', () => resolve())
      })
      req.on('error', () => resolve())
      req.end()
    })
    expect(midway, 'killed while pinning').to.equal(true)
    await waitExit(daemon)
    d = await restartAndCheck()
    // either the pin made it (and is complete: pin verify passed) or it did not; pinning again works
    const again = await rpc(d.url, `/api/v0/pin/add?arg=${car.root.toString()}`)
    expect(again.status, again.body).to.equal(200)
    expect(again.json()).to.deep.equal({ Pins: [car.root.toString()] })
    pinsBefore.set(car.root.toString(), 'recursive')
  })

  it('survives a kill during `repo gc`', async () => {
    // unpin the large CAR DAG: ~400 blocks to collect
    const daemon = d as Daemon
    const ls = (await rpc(daemon.url, '/api/v0/pin/ls?type=recursive')).json()
    const big = Object.keys(ls.Keys).find(k => !pinsBefore.has(k))
    expect(big, 'the imported CAR is pinned').to.not.equal(undefined)
    expect((await rpc(daemon.url, `/api/v0/pin/rm?arg=${big as string}`)).status).to.equal(200)
    let rows = 0
    await new Promise<void>((resolve) => {
      const req = http.request(new URL('/api/v0/repo/gc', daemon.url), { method: 'POST', agent: false }, (res) => {
        res.on('data', (c: Buffer) => {
          rows += c.toString().split('\n').length - 1
          if (rows >= 20 && daemon.proc.exitCode == null) kill(daemon)
        })
        res.on('error', () => resolve())
        res.on('close', () => resolve())
      })
      req.on('error', () => resolve())
      req.end()
    })
    expect(rows).to.be.at.least(20)
    await waitExit(daemon)
    d = await restartAndCheck()
    // a new GC finishes the job and keeps every pin
    const gc = await rpc(d.url, '/api/v0/repo/gc')
    expect(gc.status).to.equal(200)
    expect(lines(gc.body).length).to.be.greaterThan(0)
    const after = (await rpc(d.url, '/api/v0/pin/ls?type=all')).json()
    for (const [cid, type] of pinsBefore) expect(after.Keys[cid]?.Type, cid).to.equal(type)
    expect((await rpc(d.url, '/api/v0/pin/verify')).body).to.equal('')
    expect(readFileSync(path.join(repo, 'version'), 'utf8')).to.equal('18\n')
  })
})
