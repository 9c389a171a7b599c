import { expect } from 'chai'
import { createTestNode, type TestNode, renderText } from '../../helpers/node.js'
import { rejection } from '../../helpers/assert.js'
import { diagPlugin } from '../../../plugins/diag/index.js'
import { RpcError } from '../../../core/errors.js'
import { defaultConfig } from '../../../core/config/defaults.js'
import { generateIdentity, identityOf } from '../../../core/repo/index.js'
import { renderRequests, goStamp } from '../../../plugins/diag/cmds.js'
import { formatGoDuration, parseGoDuration } from '../../../core/util/duration.js'
import { tabwrite } from '../../../plugins/diag/tabwriter.js'
import { goSprintS } from '../../../plugins/diag/sys.js'
import type { RequestLogEntry } from '../../../core/request-log.js'

describe('diag plugin', () => {
  let node: TestNode
  beforeEach(async () => { node = await createTestNode({ plugins: [diagPlugin()] }) })
  afterEach(async () => { await node.stop() })

  describe('diag/cmds', () => {
    it('is NoLocal and lists requests as ReqLogEntry values', async () => {
      expect(node.registry.node(['diag', 'cmds'])?.command?.cli).to.equal(false)
      const log = node.container.cradle.requestLog
      log.add('pin/add', ['QmX'], { recursive: true }).finish()
      log.add('log/tail', [], {})
      const out: RequestLogEntry[] = await node.invoke('diag/cmds')
      expect(out).to.have.length(2)
      expect(Object.keys(out[0])).to.deep.equal(['StartTime', 'EndTime', 'Active', 'Command', 'Options', 'Args', 'ID'])
      expect(out[0]).to.include({ Command: 'pin/add', Active: false })
      expect(out[0].Args).to.deep.equal(['QmX'])
      expect(out[1]).to.include({ Command: 'log/tail', Active: true })
    })

    it('clear drops finished requests and answers nothing', async () => {
      const log = node.container.cradle.requestLog
      log.add('a', [], {}).finish()
      log.add('b', [], {})
      expect(await node.invoke('diag/cmds/clear')).to.deep.equal([])
      expect((await node.invoke('diag/cmds')).map((e: RequestLogEntry) => e.Command)).to.deep.equal(['b'])
    })

    it('set-time takes a Go duration', async () => {
      expect(await node.invoke('diag/cmds/set-time', { args: ['1m30s'] })).to.deep.equal([])
      expect(node.container.cradle.requestLog.keepMs).to.equal(90_000)
      await node.invoke('diag/cmds/set-time', { args: ['250ms'] })
      expect(node.container.cradle.requestLog.keepMs).to.equal(250)
    })

    it('set-time with a bad duration: Go’s errors', async () => {
      expect((await rejection(node.invoke('diag/cmds/set-time', { args: ['abc'] }))).message).to.equal('time: invalid duration "abc"')
      expect((await rejection(node.invoke('diag/cmds/set-time', { args: ['5'] }))).message).to.equal('time: missing unit in duration "5"')
      expect((await rejection(node.invoke('diag/cmds/set-time', { args: ['5x'] }))).message).to.equal('time: unknown unit "x" in duration "5x"')
      expect((await rejection(node.invoke('diag/cmds/set-time', {}))).message).to.equal('argument "time" is required')
    })

    it('set-time 0 keeps no finished request', async () => {
      const log = node.container.cradle.requestLog
      log.add('old', [], {}).finish()
      await node.invoke('diag/cmds/set-time', { args: ['0'] })
      await new Promise(resolve => setTimeout(resolve, 5))
      expect(await node.invoke('diag/cmds')).to.deep.equal([])
    })

    it('text: Kubo’s tabwriter table', () => {
      const start = new Date(2026, 0, 5, 3, 4, 5)
      const entries: RequestLogEntry[] = [
        { StartTime: start.toISOString(), EndTime: new Date(start.getTime() + 1500).toISOString(), Active: false, Command: 'id', Options: { encoding: 'json', 'stream-channels': true }, Args: [], ID: 0 },
        { StartTime: start.toISOString(), EndTime: '0001-01-01T00:00:00Z', Active: true, Command: 'log/tail', Options: {}, Args: ['a', 'b'], ID: 12 }
      ]
      const now = start.getTime() + 61_000
      expect(renderRequests(entries, false, now)).to.equal(
        'Command   Active  StartTime        RunTime\n' +
        'id        false   Jan  5 03:04:05  1.5s\n' +
        'log/tail  true    Jan  5 03:04:05  1m1s\n')
      expect(renderRequests(entries, true, now)).to.equal(
        'ID  Command   Arguments  Options                                Active  StartTime        RunTime\n' +
        '0   id        []         [encoding=json,stream-channels=true,]  false   Jan  5 03:04:05  1.5s\n' +
        '12  log/tail  [a b]      []                                     true    Jan  5 03:04:05  1m1s\n')
    })

    it('text through the command, with --verbose/-v', async () => {
      node.container.cradle.requestLog.add('version', [], {}).finish()
      expect((await renderText(node, 'diag/cmds')).split('\n')[0]).to.equal('Command  Active  StartTime        RunTime')
      expect((await renderText(node, 'diag/cmds', { query: [['v', ['true']]] })).split('\n')[0]).to.match(/^ID {2}Command {2}Arguments {2}Options {2}/)
    })
  })

  describe('helpers', () => {
    it('Go time.Stamp', () => {
      expect(goStamp(new Date(2026, 10, 23, 14, 5, 9))).to.equal('Nov 23 14:05:09')
    })

    it('Go Duration.String()', () => {
      expect(formatGoDuration(BigInt(0))).to.equal('0s')
      expect(formatGoDuration(BigInt(999))).to.equal('999ns')
      expect(formatGoDuration(BigInt(1500))).to.equal('1.5µs')
      expect(formatGoDuration(BigInt(1_500_000))).to.equal('1.5ms')
      expect(formatGoDuration(BigInt(60e9))).to.equal('1m0s')
      expect(formatGoDuration(BigInt(3723.5e9))).to.equal('1h2m3.5s')
      expect(formatGoDuration(BigInt(-2e9))).to.equal('-2s')
    })

    it('Go time.ParseDuration', () => {
      expect(parseGoDuration('1h2m3.5s')).to.equal(BigInt(3723.5e9))
      expect(parseGoDuration('-1.5ms')).to.equal(BigInt(-1.5e6))
      expect(parseGoDuration('.5s')).to.equal(BigInt(0.5e9))
      expect(parseGoDuration('10µs')).to.equal(BigInt(10_000))
      expect(parseGoDuration('0')).to.equal(BigInt(0))
      expect(() => parseGoDuration('')).to.throw('time: invalid duration ""')
      expect(() => parseGoDuration('.s')).to.throw('time: invalid duration ".s"')
    })

    it('tabwriter: column blocks end where a line has fewer cells', () => {
      expect(tabwrite('a\tbbbbbb\tc\nxx\ty\n', { minwidth: 4, padding: 2 })).to.equal('a   bbbbbb  c\nxx  y\n')
    })
  })

  describe('diag/sys', () => {
    it('answers Kubo’s map, keys sorted, with real values', async () => {
      const out = await node.invoke('diag/sys')
      expect(Object.keys(out)).to.deep.equal(['diskinfo', 'environment', 'ipfs_commit', 'ipfs_version', 'memory', 'net', 'runtime'])
      expect(Object.keys(out.diskinfo)).to.deep.equal(['free_space', 'fstype', 'total_space'])
      expect(out.diskinfo.total_space).to.be.a('number').greaterThan(0)
      expect(out.diskinfo.fstype).to.match(/^\d+$/)
      expect(Object.keys(out.environment)).to.deep.equal(['GOPATH', 'IPFS_PATH'])
      expect(out.ipfs_version).to.equal('0.40.1')
      expect(out.memory.virt).to.be.greaterThan(0)
      expect(out.net.online).to.equal(false)
      expect(out.net.interface_addresses).to.include('/ip4/127.0.0.1')
      expect(Object.keys(out.runtime)).to.deep.equal(['arch', 'compiler', 'gomaxprocs', 'numcpu', 'numgoroutines', 'os', 'version'])
      expect(out.runtime.version).to.equal(`node-${process.version}`)
      expect(out.runtime.numcpu).to.be.greaterThan(0)
    })

    it('text: Go’s %s of the map (Kubo has no text encoder here)', async () => {
      const text = await renderText(node, 'diag/sys')
      expect(text).to.match(/^map\[diskinfo:map\[free_space:%!s\(uint64=\d+\) fstype:\d+ total_space:%!s\(uint64=\d+\)\] environment:map\[GOPATH:\S* IPFS_PATH:\S*\] ipfs_commit: ipfs_version:0\.40\.1 memory:map\[swap:%!s\(uint64=\d+\) virt:%!s\(uint64=\d+\)\] net:map\[interface_addresses:\[.*\] online:%!s\(bool=false\)\] runtime:map\[arch:\w+ compiler:v8 gomaxprocs:%!s\(int=1\) numcpu:%!s\(int=\d+\) numgoroutines:%!s\(int=\d+\) os:\w+ version:node-v[\d.]+\]\]$/)
      expect(goSprintS({ b: ['x', 'y'], a: true })).to.equal('map[a:%!s(bool=true) b:[x y]]')
    })
  })

  describe('diag/datastore', () => {
    // Kubo 0.40.1 `ipfs diag datastore get --hex /local/filesroot` on a repo whose MFS root is this CID's multihash
    const VALUE = Buffer.from('1220475c05d79b2b904d5d3c210fc2c2679153 61e4ee3dc920fb169ad2b7d7f095fb'.replace(' ', ''), 'hex')
    const DUMP = '00000000  12 20 47 5c 05 d7 9b 2b  90 4d 5d 3c 21 0f c2 c2  |. G\\...+.M]<!...|\n' +
      '00000010  67 91 53 61 e4 ee 3d c9  20 fb 16 9a d2 b7 d7 f0  |g.Sa..=. .......|\n' +
      '00000020  95 fb                                             |..|\n'

    it('get: raw value, Kubo’s JSON, --hex dump, key-not-found error; CLI only', async () => {
      const { Key } = await import('interface-datastore')
      await node.container.cradle.datastore.put(new Key('/diagtest/filesroot'), VALUE)
      expect(await node.invoke('diag/datastore/get', { args: ['/diagtest/filesroot'] })).to.deep.equal({ key: '/diagtest/filesroot', value: VALUE.toString('base64') })
      const hex = await node.invoke('diag/datastore/get', { args: ['/diagtest/filesroot'], options: { hex: true } })
      expect(hex.hex_dump).to.equal(DUMP)
      expect(await renderText(node, 'diag/datastore/get', { args: ['/diagtest/filesroot'], options: { hex: true } })).to.equal(`Key: /diagtest/filesroot\nHex Dump:\n${DUMP}`)
      expect((await rejection(node.invoke('diag/datastore/get', { args: ['/x/y'] }))).message).to.equal('key not found: /x/y')
      expect(node.registry.resolveHttp(['diag', 'datastore', 'get'])).to.equal(undefined)
      expect(node.registry.status(['diag', 'datastore', 'count'])).to.equal('experimental')
    })

    it('count: go-datastore prefixes (cleaned, whole segments), Kubo’s JSON and text', async () => {
      const { Key } = await import('interface-datastore')
      const ds = node.container.cradle.datastore
      await ds.put(new Key('/ctest/a'), VALUE)
      await ds.put(new Key('/ctest/b/c'), VALUE)
      await ds.put(new Key('/ctestx'), VALUE)
      expect(await node.invoke('diag/datastore/count', { args: ['/ctest/'] })).to.deep.equal({ prefix: '/ctest/', count: 2 })
      expect((await node.invoke('diag/datastore/count', { args: ['ctest'] })).count).to.equal(2)
      expect((await node.invoke('diag/datastore/count', { args: ['/cte'] })).count).to.equal(0)
      expect(await renderText(node, 'diag/datastore/count', { args: ['/ctest/b'] })).to.equal('1\n')
      expect((await node.invoke('diag/datastore/count', { args: ['/'] })).count).to.be.at.least(3)
    })
  })

  describe('diag/healthy', () => {
    it('answers "ok" (text: no newline)', async () => {
      expect(await node.invoke('diag/healthy')).to.equal('ok')
      expect(await renderText(node, 'diag/healthy')).to.equal('ok')
    })

    it('really writes and removes a probe block and a probe key, leaving nothing behind', async () => {
      const { blockstore, datastore } = node.container.cradle
      const count = async (it: AsyncIterable<unknown> | Iterable<unknown>): Promise<number> => { let n = 0; for await (const _ of it) n++; return n } // eslint-disable-line @typescript-eslint/no-unused-vars
      const blocksBefore = await count(blockstore.getAll())
      const keysBefore = await count(datastore.query({}))
      const seen: string[] = []
      const put = blockstore.put.bind(blockstore)
      // observe (not replace) the real store: the probe goes through it
      blockstore.put = async (cid, bytes, opts) => { seen.push(cid.toString()); return await put(cid, bytes, opts) }
      try {
        expect(await node.invoke('diag/healthy')).to.equal('ok')
      } finally { blockstore.put = put }
      expect(seen).to.have.length(1)
      expect(await count(blockstore.getAll())).to.equal(blocksBefore)
      expect(await count(datastore.query({}))).to.equal(keysBefore)
    })

    it('online: fails with a 500 naming libp2p when the host is not started', async function () {
      this.timeout(30_000)
      const cfg = defaultConfig(identityOf(await generateIdentity()))
      ;(cfg.Addresses as Record<string, unknown>).Swarm = ['/ip4/127.0.0.1/tcp/0']
      cfg.Bootstrap = []
      ;(cfg.Routing as Record<string, unknown>).DelegatedRouters = []
      const online = await createTestNode({ plugins: [diagPlugin()], online: true, config: cfg })
      try {
        expect(await online.invoke('diag/healthy')).to.equal('ok')
        const libp2p = online.container.cradle.libp2p
        await libp2p?.stop()
        const err = await rejection(online.invoke('diag/healthy'))
        expect(err.message).to.equal('libp2p check failed: host is stopped')
        expect(err).to.be.instanceOf(RpcError)
        expect((err as RpcError).code).to.equal(0)
      } finally { await online.stop() }
    })
  })
})
