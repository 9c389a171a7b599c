// p2p through the registry: Kubo's gate, argument and option errors and text tables on one node; real
// tunnels between two in-process online nodes (TCP echo service behind `listen`, clients through
// `forward`): data both ways with half-close, --report-peer-id, stream ls/close closing both ends, close.
import net from 'node:net'
import { expect } from 'chai'
import { createTestNode, renderText, type TestNode } from '../../helpers/node.js'
import { rejection } from '../../helpers/assert.js'
import { waitFor } from '../../helpers/cluster.js'
import { p2pPlugin } from '../../../plugins/p2p/index.js'
import { swarmPlugin } from '../../../plugins/swarm/index.js'
import { defaultConfig } from '../../../core/config/defaults.js'
import { generateIdentity, identityOf } from '../../../core/repo/index.js'
import { execute } from '../../../registry/execute.js'
import { exchange } from '../../helpers/tcp.js'

/** the values of an ndjson command as they come (registry.invoke collects them all) */
async function stream (t: TestNode, path: string, input: Record<string, unknown>, signal = new AbortController().signal): Promise<AsyncIterator<any>> {
  const outcome = await execute(t.registry.prepare(path.split('/'), input), t.container, { signal })
  if (outcome.kind !== 'ndjson') throw new Error(`${path} is not ndjson`)
  return outcome.items[Symbol.asyncIterator]()
}

const PEER = '12D3KooWQ3iqi3w58mDVUB7beFy6tuwX4WuxCvoBCZEzLnDANb2u'
const plugins = (): any[] => [p2pPlugin(), swarmPlugin()]

async function all<T> (v: AsyncIterable<T> | T): Promise<T[]> {
  if (Array.isArray(v)) return v
  if (v != null && typeof (v as AsyncIterable<T>)[Symbol.asyncIterator] === 'function') {
    const out: T[] = []
    for await (const x of v as AsyncIterable<T>) out.push(x)
    return out
  }
  return [v as T]
}

async function config (enabled = true): Promise<any> {
  const cfg = defaultConfig(identityOf(await generateIdentity())) as any
  cfg.Addresses.Swarm = ['/ip4/127.0.0.1/tcp/0']
  cfg.Bootstrap = []
  cfg.Routing.DelegatedRouters = []
  cfg.Routing.Type = 'none'
  cfg.Discovery.MDNS.Enabled = false
  cfg.Experimental.Libp2pStreamMounting = enabled
  return cfg
}

/** A TCP service: echoes what it reads, upper-cased, and ends when the client ends; remembers what it got. */
async function echoServer (): Promise<{ server: net.Server, port: number, received: Buffer[], sockets: Set<net.Socket> }> {
  const received: Buffer[] = []
  const sockets = new Set<net.Socket>()
  const server = net.createServer({ allowHalfOpen: true }, (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
    s.on('error', () => {})
    s.on('data', (d) => { received.push(d); s.write(d.toString().toUpperCase()) })
    s.on('end', () => { s.end() })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as net.AddressInfo).port, received, sockets }
}

describe('p2p plugin', function () {
  this.timeout(60_000)

  describe('gate and arguments (one node)', () => {
    let off: TestNode
    let on: TestNode
    let offline: TestNode
    before(async () => {
      off = await createTestNode({ plugins: plugins(), online: true, config: await config(false) })
      on = await createTestNode({ plugins: plugins(), online: true, config: await config() })
      offline = await createTestNode({ plugins: plugins(), config: await config() })
    })
    after(async () => { await Promise.all([off?.stop(), on?.stop(), offline?.stop()]) })

    it("answers Kubo's error while Experimental.Libp2pStreamMounting is off, and the offline error offline", async () => {
      for (const [p, args] of [['p2p/ls', []], ['p2p/stream/ls', []], ['p2p/close', []], ['p2p/listen', ['/x/a', '/ip4/127.0.0.1/tcp/1']], ['p2p/stream/close', ['1']]] as const) {
        expect((await rejection(off.invoke(p, { args: [...args] }).then(all))).message, p).to.equal('libp2p stream mounting not enabled')
        expect((await rejection(offline.invoke(p, { args: [...args] }).then(all))).message, p).to.equal("this command must be run in online mode. Try running 'ipfs daemon' first")
      }
    })

    it("argument errors as Kubo's, checked in Kubo's order", async () => {
      const cases: Array<[string, string[], Record<string, unknown>, string]> = [
        ['p2p/listen', ['/x/t', '/ip4/127.0.0.1/tcp/0'], {}, 'port can not be 0'],
        ['p2p/listen', ['/y/t', '/ip4/127.0.0.1/tcp/5'], {}, "protocol name must be within '/x/' namespace"],
        ['p2p/listen', ['/y/t', '/ip4/127.0.0.1/tcp/0'], {}, 'port can not be 0'],
        ['p2p/listen', ['/x/t', 'foo'], {}, 'failed to parse multiaddr "foo": must begin with /'],
        ['p2p/listen', ['/x/t', '/ip4/127.0.0.1'], {}, 'address does not contain tcp or udp protocol'],
        ['p2p/forward', ['/x/f', '/ip4/127.0.0.1/tcp/0', 'foo'], {}, 'failed to parse multiaddr "foo": must begin with /'],
        ['p2p/forward', ['/x/f', 'foo', `/p2p/${PEER}`], {}, 'failed to parse multiaddr "foo": must begin with /'],
        ['p2p/forward', ['/y/f', '/ip4/127.0.0.1/tcp/0', `/p2p/${PEER}`], {}, "protocol name must be within '/x/' namespace"],
        ['p2p/forward', ['/x/f', '/ip4/127.0.0.1/udp/0', `/p2p/${PEER}`], {}, 'listen udp4 127.0.0.1:0: address 127.0.0.1:0: unexpected address type'],
        ['p2p/forward', ['/x/f', '/ip4/127.0.0.1/tcp/0', '/ip4/127.0.0.1/tcp/4001'], {}, 'target address /ip4/127.0.0.1/tcp/4001 names no peer: it must end in /p2p/<peer-id>'],
        ['p2p/close', [], {}, 'no matching options given'],
        ['p2p/close', [], { all: true, protocol: '/x/test' }, "can't combine --all with other matching options"],
        ['p2p/close', [], { 'listen-address': 'foo' }, 'failed to parse multiaddr "foo": must begin with /'],
        ['p2p/close', [], { 'target-address': 'foo' }, 'failed to parse multiaddr "foo": must begin with /'],
        ['p2p/stream/close', [], {}, 'no id specified'],
        ['p2p/stream/close', ['abc'], {}, 'strconv.ParseUint: parsing "abc": invalid syntax'],
        ['p2p/stream/close', ['-1'], {}, 'strconv.ParseUint: parsing "-1": invalid syntax']
      ]
      for (const [p, args, options, message] of cases) {
        expect((await rejection(on.invoke(p, { args, options }).then(all))).message, `${p} ${args.join(' ')}`).to.equal(message)
      }
      // a missing argument is a request error (400) before the gate
      const missing = await rejection(off.invoke('p2p/listen', { args: ['/x/t'] }))
      expect(missing.message).to.equal('argument "target-address" is required')
    })

    it('registers listeners once per protocol and forwarders once per address; ls, close by each option', async () => {
      const id = (on.container.cradle.libp2p as any).peerId.toString()
      expect(await on.invoke('p2p/ls')).to.deep.equal({ Listeners: null })
      expect(await all(await on.invoke('p2p/listen', { args: ['/x/t', '/ip4/127.0.0.1/tcp/10101'] }))).to.deep.equal([])
      expect((await rejection(on.invoke('p2p/listen', { args: ['/x/t', '/ip4/127.0.0.1/tcp/10102'] }))).message).to.equal('listener already registered')
      await all(await on.invoke('p2p/listen', { args: ['/custom', '/ip4/127.0.0.1/tcp/10102'], options: { 'allow-custom-protocol': true } }))
      await all(await on.invoke('p2p/forward', { args: ['/x/t', '/ip4/127.0.0.1/tcp/0', `/p2p/${PEER}`] }))
      const ls = await on.invoke('p2p/ls')
      expect(ls.Listeners).to.have.length(3)
      const [fwd, l1, l2] = ls.Listeners
      expect(fwd.Protocol).to.equal('/x/t')
      expect(fwd.ListenAddress).to.match(/^\/ip4\/127\.0\.0\.1\/tcp\/[1-9]\d*$/)
      expect(fwd.TargetAddress).to.equal(`/p2p/${PEER}`)
      expect(l1).to.deep.equal({ Protocol: '/x/t', ListenAddress: `/p2p/${id}`, TargetAddress: '/ip4/127.0.0.1/tcp/10101' })
      expect(l2).to.deep.equal({ Protocol: '/custom', ListenAddress: `/p2p/${id}`, TargetAddress: '/ip4/127.0.0.1/tcp/10102' })
      // Kubo's table: one header line before every row, columns aligned over all lines
      const width = '/custom'.length + 1
      expect(await renderText(on, 'p2p/ls', { options: { headers: true } })).to.equal([
        ['Protocol', 'Listen Address', 'Target Address'], [fwd.Protocol, fwd.ListenAddress, fwd.TargetAddress],
        ['Protocol', 'Listen Address', 'Target Address'], [l1.Protocol, l1.ListenAddress, l1.TargetAddress],
        ['Protocol', 'Listen Address', 'Target Address'], [l2.Protocol, l2.ListenAddress, l2.TargetAddress]
      ].map(r => r[0].padEnd(Math.max(width, 'Protocol'.length + 1)) + r[1].padEnd(`/p2p/${id}`.length + 1) + r[2] + '\n').join(''))
      // close: -l matches the forwarder only; -t the listener with that target; -p both of a protocol
      expect(await on.invoke('p2p/close', { options: { 'target-address': '/ip4/127.0.0.1/tcp/10102' } })).to.equal(1)
      expect(await on.invoke('p2p/close', { options: { 'listen-address': fwd.ListenAddress } })).to.equal(1)
      expect(await on.invoke('p2p/close', { options: { protocol: '/nomatch' } })).to.equal(0)
      expect(await renderText(on, 'p2p/close', { options: { 'listen-address': `/p2p/${id}` } })).to.equal('Closed 1 stream(s)\n')
      expect(await on.invoke('p2p/ls')).to.deep.equal({ Listeners: null })
      // the local port of a closed forwarder is free again
      const port = Number(fwd.ListenAddress.split('/')[4])
      await new Promise<void>((resolve, reject) => { const s = net.createServer(); s.once('error', reject); s.listen(port, '127.0.0.1', () => { s.close(); resolve() }) })
    })

    it('--foreground: "active" first, "closing" when p2p close removes it; the request going away removes it silently', async () => {
      const it = await stream(on, 'p2p/listen', { args: ['/x/fg', '/ip4/127.0.0.1/tcp/5555'], options: { foreground: true } })
      expect((await it.next()).value).to.deep.equal({ Status: 'active', Protocol: '/x/fg', Address: '/ip4/127.0.0.1/tcp/5555' })
      const next = it.next()
      expect(await on.invoke('p2p/close', { options: { protocol: '/x/fg' } })).to.equal(1)
      expect((await next).value).to.deep.equal({ Status: 'closing', Protocol: '/x/fg', Address: '/ip4/127.0.0.1/tcp/5555' })
      expect((await it.next()).done).to.equal(true)

      const controller = new AbortController()
      const it2 = await stream(on, 'p2p/forward', { args: ['/x/fg', '/ip4/127.0.0.1/tcp/0', `/p2p/${PEER}`], options: { foreground: true } }, controller.signal)
      expect((await it2.next()).value).to.deep.equal({ Status: 'active', Protocol: '/x/fg', Address: '/ip4/127.0.0.1/tcp/0' })
      expect((await on.invoke('p2p/ls')).Listeners).to.have.length(1)
      const done = it2.next()
      controller.abort()
      expect((await done).done).to.equal(true)
      expect(await on.invoke('p2p/ls')).to.deep.equal({ Listeners: null })
    })
  })

  describe('tunnels between two online nodes', () => {
    let a: TestNode
    let b: TestNode
    let echo: Awaited<ReturnType<typeof echoServer>>
    let aId: string
    let bId: string
    before(async () => {
      a = await createTestNode({ plugins: plugins(), online: true, config: await config() })
      b = await createTestNode({ plugins: plugins(), online: true, config: await config() })
      echo = await echoServer()
      aId = (a.container.cradle.libp2p as any).peerId.toString()
      bId = (b.container.cradle.libp2p as any).peerId.toString()
      const addr = (a.container.cradle.libp2p as any).getMultiaddrs()[0].toString()
      await b.invoke('swarm/connect', { args: [addr] })
    })
    after(async () => {
      await Promise.all([a?.stop(), b?.stop()])
      echo?.server.close()
    })

    it('forward → listen → TCP service and back, with half-close; streams listed on both sides, then gone', async () => {
      await all(await a.invoke('p2p/listen', { args: ['/x/echo', `/ip4/127.0.0.1/tcp/${echo.port}`] }))
      await all(await b.invoke('p2p/forward', { args: ['/x/echo', '/ip4/127.0.0.1/tcp/0', `/p2p/${aId}`] }))
      const port = Number((await b.invoke('p2p/ls')).Listeners[0].ListenAddress.split('/')[4])
      expect(await exchange(port, 'hello tunnel')).to.equal('HELLO TUNNEL')
      // several at once, a larger payload
      const big = 'x'.repeat(300_000)
      const answers = await Promise.all([exchange(port, big), exchange(port, 'one'), exchange(port, 'two')])
      expect(answers[0]).to.equal(big.toUpperCase())
      expect(answers.slice(1)).to.deep.equal(['ONE', 'TWO'])
      // finished tunnels leave both registries
      await waitFor(async () => (await a.invoke('p2p/stream/ls')).Streams == null && (await b.invoke('p2p/stream/ls')).Streams == null, { what: 'streams to close' })
      await waitFor(() => echo.sockets.size === 0, { what: 'service connections to close' })
    })

    it('stream ls on both ends while a tunnel is open; stream close resets both ends', async () => {
      const port = Number((await b.invoke('p2p/ls')).Listeners[0].ListenAddress.split('/')[4])
      const client = net.connect({ port, host: '127.0.0.1' })
      client.on('error', () => {})
      const got: Buffer[] = []
      client.on('data', (d) => got.push(d))
      const clientClosed = new Promise(resolve => client.once('close', resolve))
      client.write('ping')
      await waitFor(() => Buffer.concat(got).toString() === 'PING', { what: 'the echo' })
      const [sa] = (await a.invoke('p2p/stream/ls')).Streams
      const [sb] = (await b.invoke('p2p/stream/ls')).Streams
      expect(sa).to.deep.include({ Protocol: '/x/echo', OriginAddress: `/p2p/${bId}`, TargetAddress: `/ip4/127.0.0.1/tcp/${echo.port}` })
      expect(sa.HandlerID).to.match(/^\d+$/)
      expect(sb).to.deep.include({ Protocol: '/x/echo', TargetAddress: `/p2p/${aId}` })
      expect(sb.OriginAddress).to.equal(`/ip4/127.0.0.1/tcp/${client.localPort as number}`)
      expect(await renderText(a, 'p2p/stream/ls', { options: { headers: true } })).to.equal(
        `ID${' '.repeat(Math.max(1, sa.HandlerID.length - 1))}Protocol Origin${' '.repeat(sa.OriginAddress.length - 5)}Target\n${sa.HandlerID.padEnd(Math.max(3, sa.HandlerID.length + 1))}/x/echo  ${sa.OriginAddress} ${sa.TargetAddress}\n`)
      // closing on the listening side: its service connection and the far client both go
      expect(await all(await a.invoke('p2p/stream/close', { args: [sa.HandlerID] }))).to.deep.equal([])
      expect((await a.invoke('p2p/stream/ls')).Streams).to.equal(null)
      await clientClosed
      await waitFor(async () => (await b.invoke('p2p/stream/ls')).Streams == null, { what: 'the far end to close' })
      await waitFor(() => echo.sockets.size === 0, { what: 'the service connection to close' })
    })

    it('--report-peer-id writes the dialing peer first; stream close --all', async () => {
      const seen: string[] = []
      const svc = net.createServer((s) => { s.on('data', d => { seen.push(d.toString()) }); s.on('error', () => {}) })
      await new Promise<void>(resolve => svc.listen(0, '127.0.0.1', resolve))
      try {
        const svcPort = (svc.address() as net.AddressInfo).port
        await all(await a.invoke('p2p/listen', { args: ['/x/report', `/ip4/127.0.0.1/tcp/${svcPort}`], options: { 'report-peer-id': true } }))
        await all(await b.invoke('p2p/forward', { args: ['/x/report', '/ip4/127.0.0.1/tcp/0', `/p2p/${aId}`] }))
        const fwd = (await b.invoke('p2p/ls')).Listeners.find((l: any) => l.Protocol === '/x/report')
        const client = net.connect({ port: Number(fwd.ListenAddress.split('/')[4]), host: '127.0.0.1' })
        client.on('error', () => {})
        const closed = new Promise(resolve => client.once('close', resolve))
        client.write('data')
        await waitFor(() => seen.join('') === `${bId}\ndata`, { what: 'the peer id then the data' })
        await all(await b.invoke('p2p/stream/close', { options: { all: true } }))
        await closed
        await waitFor(async () => (await a.invoke('p2p/stream/ls')).Streams == null, { what: 'the listening side to close' })
      } finally {
        svc.close()
      }
    })

    it('a dead target resets the stream and closes the client; closing a listener keeps open streams', async () => {
      await all(await a.invoke('p2p/listen', { args: ['/x/dead', '/ip4/127.0.0.1/tcp/1'] }))
      await all(await b.invoke('p2p/forward', { args: ['/x/dead', '/ip4/127.0.0.1/tcp/0', `/p2p/${aId}`] }))
      const fwd = (await b.invoke('p2p/ls')).Listeners.find((l: any) => l.Protocol === '/x/dead')
      expect(await exchange(Number(fwd.ListenAddress.split('/')[4]), 'x')).to.equal('')
      await waitFor(async () => (await b.invoke('p2p/stream/ls')).Streams == null, { what: 'no stream left' })

      const port = Number((await b.invoke('p2p/ls')).Listeners.find((l: any) => l.Protocol === '/x/echo').ListenAddress.split('/')[4])
      const client = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true })
      const got: Buffer[] = []
      client.on('data', (d) => got.push(d))
      client.write('still')
      await waitFor(() => Buffer.concat(got).toString() === 'STILL', { what: 'the echo' })
      expect(await a.invoke('p2p/close', { options: { all: true } })).to.equal(3)
      expect(await b.invoke('p2p/close', { options: { all: true } })).to.equal(3)
      client.write(' open')
      await waitFor(() => Buffer.concat(got).toString() === 'STILL OPEN', { what: 'the stream to outlive its listener' })
      client.end()
      await waitFor(async () => (await a.invoke('p2p/stream/ls')).Streams == null && (await b.invoke('p2p/stream/ls')).Streams == null, { what: 'streams to close' })
    })
  })
})
