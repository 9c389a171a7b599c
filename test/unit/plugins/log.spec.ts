import { expect } from 'chai'
import { createTestNode, type TestNode, renderText } from '../../helpers/node.js'
import { rejection } from '../../helpers/assert.js'
import { logPlugin } from '../../../plugins/log/index.js'
import { createLogging, parseLogLevelEnv } from '../../../core/logger/index.js'
import { execute } from '../../../registry/execute.js'

/** Start `log tail` and resolve once its handler has run (subscribed), unlike registry.invoke, which only ends with the stream. */
async function startTail (node: TestNode, options: Record<string, unknown>, signal: AbortSignal): Promise<() => Promise<string>> {
  await node.registry.load(['log', 'tail'])
  const outcome = await execute(node.registry.prepare(['log', 'tail'], { options }), node.container, { signal })
  if (outcome.kind !== 'bytes') throw new Error(`log tail gave ${outcome.kind}`)
  return async () => {
    const chunks: Uint8Array[] = []
    for await (const chunk of outcome.body) chunks.push(chunk)
    return Buffer.concat(chunks).toString()
  }
}

describe('log plugin', () => {
  let node: TestNode
  beforeEach(async () => {
    // a fresh logging service per test: levels are process-wide state in Kubo, per node here
    const logging = createLogging({ level: 'error' })
    logging.forComponent('core')
    logging.forComponent('dht')
    node = await createTestNode({ plugins: [logPlugin()], logging })
  })
  afterEach(async () => { await node.stop() })

  describe('log/level', () => {
    it('is NoLocal (the CLI needs a daemon)', () => {
      expect(node.registry.node(['log', 'level'])?.command?.cli).to.equal(false)
    })

    it('no arguments: only the default level, under the "" key', async () => {
      expect(await node.invoke('log/level')).to.deep.equal({ Levels: { '': 'error' } })
      expect(await renderText(node, 'log/level')).to.equal('error\n')
    })

    it('one subsystem: its level', async () => {
      expect(await node.invoke('log/level', { args: ['core'] })).to.deep.equal({ Levels: { core: 'error' } })
      expect(await renderText(node, 'log/level', { args: ['core'] })).to.equal('error\n')
      // the JSON encoding keeps the names in the text form (Kubo's isRPC branch)
      expect(await renderText(node, 'log/level', { args: ['core'], options: { encoding: 'json' } })).to.equal('core: error\n')
    })

    it('an unknown subsystem: go-log’s error', async () => {
      expect((await rejection(node.invoke('log/level', { args: ['nope'] }))).message).to.equal('error: No such logger')
    })

    it('set one subsystem: message, new level, default unchanged', async () => {
      const out = await node.invoke('log/level', { args: ['core', 'debug'] })
      expect(out).to.deep.equal({ Message: "Changed log level of 'core' to 'debug'\n" })
      expect(Object.keys(out)).to.deep.equal(['Message'])
      expect(await renderText(node, 'log/level', { args: ['core', 'info'] })).to.equal("Changed log level of 'core' to 'info'\n")
      expect(await node.invoke('log/level', { args: ['core'] })).to.deep.equal({ Levels: { core: 'info' } })
      expect(await node.invoke('log/level')).to.deep.equal({ Levels: { '': 'error' } })
      expect(node.container.cradle.logging.getLevel('dht')).to.equal('error')
    })

    it("'all' and '*' list every subsystem with the default as (default)", async () => {
      await node.invoke('log/level', { args: ['dht', 'warn'] })
      const all = await node.invoke('log/level', { args: ['all'] })
      expect(all.Levels['(default)']).to.equal('error')
      expect(all.Levels.dht).to.equal('warn')
      expect(all.Levels.core).to.equal('error')
      expect(all.Levels).to.not.have.property('*')
      expect(await node.invoke('log/level', { args: ['*'] })).to.deep.equal(all)
      const text = await renderText(node, 'log/level', { args: ['all'] })
      expect(text.split('\n')).to.include('(default): error').and.to.include('dht: warn')
      expect(text.trimEnd().split('\n')).to.deep.equal(text.trimEnd().split('\n').sort())
    })

    it("set 'all': every subsystem and the default, message says '*'", async () => {
      await node.invoke('log/level', { args: ['core', 'debug'] })
      expect(await node.invoke('log/level', { args: ['all', 'info'] })).to.deep.equal({ Message: "Changed log level of '*' to 'info'\n" })
      expect(await node.invoke('log/level')).to.deep.equal({ Levels: { '': 'info' } })
      expect(await node.invoke('log/level', { args: ['core'] })).to.deep.equal({ Levels: { core: 'info' } })
    })

    it("'default' sets a subsystem to the current default level", async () => {
      await node.invoke('log/level', { args: ['core', 'debug'] })
      expect(await node.invoke('log/level', { args: ['core', 'default'] })).to.deep.equal({ Message: "Changed log level of 'core' to 'error'\n" })
      expect(await node.invoke('log/level', { args: ['core'] })).to.deep.equal({ Levels: { core: 'error' } })
    })

    it('a subsystem set before it logs is known afterwards (go-log creates the entry)', async () => {
      await node.invoke('log/level', { args: ['later', 'warn'] })
      expect(await node.invoke('log/level', { args: ['later'] })).to.deep.equal({ Levels: { later: 'warn' } })
    })

    it('levels are case-insensitive (zap), the message keeps what was given', async () => {
      expect((await node.invoke('log/level', { args: ['core', 'DEBUG'] })).Message).to.equal("Changed log level of 'core' to 'DEBUG'\n")
      expect(await node.invoke('log/level', { args: ['core'] })).to.deep.equal({ Levels: { core: 'debug' } })
    })

    it('a bad level: zap’s error', async () => {
      expect((await rejection(node.invoke('log/level', { args: ['core', 'loud'] }))).message).to.equal('unrecognized level: "loud"')
    })
  })

  describe('log/ls', () => {
    it('lists the subsystems as {Strings}', async () => {
      const out = await node.invoke('log/ls')
      expect(Object.keys(out)).to.deep.equal(['Strings'])
      expect(out.Strings).to.include('core').and.to.include('dht')
      expect(await renderText(node, 'log/ls')).to.match(/^(?:.+\n)+$/).and.to.include('core\ndht\n')
    })
  })

  describe('log/tail', () => {
    it('is experimental, a byte stream with a log-level option defaulting to ""', () => {
      const prepared = node.registry.prepare(['log', 'tail'], {})
      expect(prepared.command.status).to.equal('experimental')
      expect(prepared.output).to.equal('bytes')
      expect(prepared.values['log-level']).to.equal('')
    })

    it('streams JSON lines of what subsystems log until the client goes away', async () => {
      const logging = node.container.cradle.logging
      await node.invoke('log/level', { args: ['core', 'info'] })
      const controller = new AbortController()
      const read = await startTail(node, {}, controller.signal)
      logging.forComponent('core').info('hello tail')
      logging.forComponent('core').debug('below the core level')
      logging.forComponent('dht').warn('below the default level')
      logging.forComponent('dht').error('dht trouble')
      await new Promise(resolve => setTimeout(resolve, 20))
      controller.abort()
      const lines = (await read()).trimEnd().split('\n').map(l => JSON.parse(l))
      expect(lines.map(l => [l.level, l.logger, l.msg])).to.deep.equal([['info', 'core', 'hello tail'], ['error', 'dht', 'dht trouble']])
      expect(Object.keys(lines[0]).slice(0, 4)).to.deep.equal(['level', 'ts', 'logger', 'msg'])
      expect(lines[0].ts).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    })

    it('--log-level raises the minimum', async () => {
      const logging = node.container.cradle.logging
      await node.invoke('log/level', { args: ['all', 'debug'] })
      const controller = new AbortController()
      const read = await startTail(node, { 'log-level': 'warn' }, controller.signal)
      logging.forComponent('core').info('too low')
      logging.forComponent('core').warn('kept')
      await new Promise(resolve => setTimeout(resolve, 20))
      controller.abort()
      const lines = (await read()).trimEnd().split('\n').map(l => JSON.parse(l))
      expect(lines.map(l => l.msg)).to.deep.equal(['kept'])
    })

    it('a bad --log-level: Kubo’s error', async () => {
      const err = await rejection(node.invoke('log/tail', { options: { 'log-level': 'loud' } }))
      expect(err.message).to.equal('setting log level loud: unrecognized level: "loud"')
    })
  })

  // go-log's syntax, as Kubo 0.40.1 takes it: a default level and/or subsystem=level items
  describe('GOLOG_LOG_LEVEL', () => {
    const saved = process.env.GOLOG_LOG_LEVEL
    afterEach(() => {
      if (saved == null) Reflect.deleteProperty(process.env, 'GOLOG_LOG_LEVEL')
      else process.env.GOLOG_LOG_LEVEL = saved
    })

    it('default level plus subsystem levels; log level all resets them all', () => {
      process.env.GOLOG_LOG_LEVEL = 'warn,swarm2=info,Foo=DEBUG'
      const logging = createLogging()
      expect(logging.getLevel('*')).to.equal('warn')
      expect(logging.getLevel('swarm2')).to.equal('info')
      expect(logging.getLevel('Foo')).to.equal('debug')
      expect(logging.getLevel('core')).to.equal('warn')
      expect(logging.levels()).to.deep.equal({ '*': 'warn', Foo: 'debug', swarm2: 'info' })
      logging.setLevel('*', 'error')
      expect(logging.levels()).to.deep.equal({ '*': 'error', Foo: 'error', swarm2: 'error' })
    })

    it('subsystem only: the default stays error; bad items are skipped with Kubo\'s message', () => {
      process.env.GOLOG_LOG_LEVEL = 'swarm2=debug'
      const logging = createLogging()
      expect([logging.getLevel('*'), logging.getLevel('swarm2')]).to.deep.equal(['error', 'debug'])
      const warnings: string[] = []
      const parsed = parseLogLevelEnv('info,swarm2=bogus, warn', (m) => warnings.push(m))
      expect(parsed.level).to.equal('info')
      expect([...parsed.subsystems]).to.deep.equal([])
      expect(warnings).to.deep.equal(['error setting log level "swarm2=bogus": unrecognized level: "bogus"\n', 'error setting log level " warn": unrecognized level: " warn"\n'])
    })
  })
})
