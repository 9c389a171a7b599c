// Integration: what the API port serves beside /api/v0 (/debug/metrics/prometheus, /debug/vars,
// /debug/pprof/, /logs) and `diag profile` over HTTP and through the CLI, on a spawned daemon.
import { expect } from 'chai'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { startDaemon, type Daemon } from '../helpers/daemon.js'
import { ensureDebs } from '../helpers/debs.js'

/** every entry of a zip, read with Debian's unzip (an independent reader) */
async function zipEntries (file: string): Promise<Record<string, Buffer>> {
  const why = ensureDebs({ unzip: 'unzip' })
  if (why != null) throw new Error(why)
  const out: Record<string, Buffer> = {}
  for (const name of execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
    out[name] = execFileSync('unzip', ['-p', file, name], { maxBuffer: 1 << 30 })
  }
  return out
}

describe('API port /debug and /logs, diag profile (spawned)', function () {
  this.timeout(120_000)
  let d: Daemon
  const dirs: string[] = []
  before(async () => { d = await startDaemon() })
  after(async () => { await d?.stop(); for (const x of dirs) rmSync(x, { recursive: true, force: true }) })

  it('/debug/metrics/prometheus: Kubo\'s ipfs_http_* and ipfs_fsrepo_datastore_* metrics move with requests', async () => {
    const scrape = async (): Promise<string> => {
      const r = await fetch(`${d.url}/debug/metrics/prometheus`)
      expect(r.status).to.equal(200)
      expect(r.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/)
      return await r.text()
    }
    const value = (body: string, series: string): number => {
      const line = body.split('\n').find(l => l.startsWith(series + ' '))
      return line == null ? 0 : Number(line.slice(series.length + 1))
    }
    const before = await scrape()
    for (const name of ['ipfs_http_request_duration_seconds', 'ipfs_http_request_size_bytes', 'ipfs_http_response_size_bytes']) {
      expect(before).to.include(`# TYPE ${name} summary`)
    }
    expect(before).to.include('# TYPE process_cpu_seconds_total counter')
    expect(before).to.include('# TYPE process_resident_memory_bytes gauge')
    // prom-client's defaults, the GC histogram included (its observer starts at the first scrape)
    for (const name of ['nodejs_eventloop_lag_seconds gauge', 'nodejs_heap_space_size_used_bytes gauge', 'nodejs_version_info gauge', 'nodejs_gc_duration_seconds histogram']) {
      expect(before).to.include(`# TYPE ${name}`)
    }
    expect(before).to.match(/^ipfs_info\{commit="",version="[\d.]+",agent="tsipfs\/[^"]+"\} 1$/m)
    const posts = value(before, 'ipfs_http_requests_total{code="200",handler="api",method="post"}')
    // the measured calls (pins and the MFS root write to LevelDB with synced batches of their own, not counted)
    const writes = (body: string): number => ['get', 'has', 'query', 'put', 'batchput'].reduce((n, op) => n + value(body, `ipfs_fsrepo_datastore_${op}_total`), 0)
    const puts = writes(before)
    expect(d.cli(['add', '-Q'], { input: 'metrics\n' }).status).to.equal(0)
    expect(d.cli(['pin', 'ls']).status).to.equal(0)
    const after = await scrape()
    expect(value(after, 'ipfs_http_requests_total{code="200",handler="api",method="post"}')).to.be.greaterThan(posts)
    expect(writes(after)).to.be.greaterThan(puts)
    expect(value(after, 'ipfs_http_request_duration_seconds_count{handler="api"}')).to.be.greaterThan(0)
    expect(after).to.match(/^ipfs_fsrepo_datastore_get_latency_seconds_bucket\{le="\+Inf"\} \d+$/m)
  })

  it('/debug/vars, /debug/pprof/ and its profiles; Kubo\'s 404 and 405 texts', async () => {
    const vars = await fetch(`${d.url}/debug/vars`)
    expect(vars.headers.get('content-type')).to.equal('application/json; charset=utf-8')
    const v = await vars.json() as { cmdline: string[], memstats: { heapUsed: number } }
    expect(v.cmdline).to.include('daemon')
    expect(v.memstats.heapUsed).to.be.greaterThan(0)
    const post = await fetch(`${d.url}/debug/vars`, { method: 'POST' })
    expect(post.status).to.equal(405)
    expect(post.headers.get('allow')).to.equal('GET, HEAD')
    expect((await (await fetch(`${d.url}/debug/pprof/`)).text())).to.include("<a href='profile?debug=1'>profile</a>")
    const cpu = await (await fetch(`${d.url}/debug/pprof/profile?seconds=1`)).json() as { nodes: unknown[], startTime: number, endTime: number }
    expect(cpu.nodes.length).to.be.greaterThan(0)
    expect(cpu.endTime - cpu.startTime).to.be.at.least(900_000)
    expect(await (await fetch(`${d.url}/debug/pprof/goroutine`)).text()).to.match(/^event loop resources: total \d+/)
    const unknown = await fetch(`${d.url}/debug/pprof/mutex`)
    expect(unknown.status).to.equal(404)
    expect(await unknown.text()).to.equal('Unknown profile\n')
    const other = await fetch(`${d.url}/debug/nothing`)
    expect(other.status).to.equal(404)
    expect(await other.text()).to.equal('404 page not found\n')
  })

  it('/logs streams the log events as NDJSON lines, as log tail does', async () => {
    const ac = new AbortController()
    const res = await fetch(`${d.url}/logs`, { signal: ac.signal })
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8')
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    expect(d.cli(['log', 'level', 'all', 'info']).status).to.equal(0)
    let text = ''
    while (!text.includes("Changed log level of '*' to 'info'")) {
      const { value, done } = await reader.read()
      if (done === true) break
      text += Buffer.from(value).toString()
    }
    ac.abort()
    const line = JSON.parse(text.split('\n').find(l => l.includes('Changed log level')) as string) as Record<string, string>
    expect(Object.keys(line).slice(0, 4)).to.deep.equal(['level', 'ts', 'logger', 'msg'])
    expect(line.level).to.equal('info')
    d.cli(['log', 'level', 'all', 'error'])
  })

  it('diag profile over HTTP: a zip streamed with the chosen collectors; bad options get Kubo\'s errors', async () => {
    const res = await fetch(`${d.url}/api/v0/diag/profile?profile-time=1s&collectors=cpu&collectors=version&collectors=goroutines-stack&collectors=sysinfo&collectors=mutex`, { method: 'POST' })
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.equal('application/zip')
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-profile-')); dirs.push(dir)
    const file = path.join(dir, 'p.zip')
    const { writeFileSync } = await import('node:fs')
    writeFileSync(file, Buffer.from(await res.arrayBuffer()))
    const entries = await zipEntries(file)
    expect(Object.keys(entries).sort()).to.deep.equal(['cpu.cpuprofile', 'goroutines.stacks', 'sysinfo.json', 'version.json'])
    expect(JSON.parse(entries['version.json'].toString())).to.have.property('Version')
    expect(JSON.parse(entries['sysinfo.json'].toString())).to.have.all.keys('diskinfo', 'environment', 'ipfs_commit', 'ipfs_version', 'memory', 'net', 'runtime')
    expect(JSON.parse(entries['cpu.cpuprofile'].toString()).nodes).to.be.an('array')
    const bad = await fetch(`${d.url}/api/v0/diag/profile?collectors=bogus`, { method: 'POST' })
    expect(bad.status).to.equal(500)
    expect((await bad.json() as { Message: string }).Message).to.equal("unknown collector 'bogus'")
    const badTime = await fetch(`${d.url}/api/v0/diag/profile?profile-time=x`, { method: 'POST' })
    expect((await badTime.json() as { Message: string }).Message).to.equal('failed to parse profile duration "x": time: invalid duration "x"')
  })

  it('diag profile in the CLI writes ipfs-profile-<time>.zip and prints Kubo\'s line; -o names the file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-profile-')); dirs.push(dir)
    const { spawnSync } = await import('node:child_process')
    const { CLI } = await import('../helpers/daemon.js')
    const run = (args: string[]): { status: number | null, stdout: string } => spawnSync(process.execPath, [CLI, 'diag', 'profile', ...args], { cwd: dir, env: { ...process.env, IPFS_PATH: d.repo }, encoding: 'utf8' })
    const r = run(['--profile-time=0', '--collectors=version,heap'])
    expect(r.status).to.equal(0)
    const name = /^Wrote profiles to: (ipfs-profile-\d{4}-\d\d-\d\dT\d\d_\d\d_\d\d(Z|[+-]\d\d_\d\d)\.zip)\n$/.exec(r.stdout)?.[1]
    expect(name, r.stdout).to.be.a('string')
    expect(readdirSync(dir)).to.deep.equal([name])
    const entries = await zipEntries(path.join(dir, name as string))
    expect(Object.keys(entries).sort()).to.deep.equal(['heap.heapsnapshot', 'version.json'])
    expect(JSON.parse(entries['heap.heapsnapshot'].toString()).snapshot).to.have.property('meta')
    const o = run(['-o', 'mine.zip', '--profile-time=0', '--collectors=version'])
    expect(o.stdout).to.equal('Wrote profiles to: mine.zip\n')
  })
})
