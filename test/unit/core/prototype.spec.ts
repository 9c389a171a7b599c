// No outside key reaches a prototype: `__proto__`, `constructor` and `prototype` are ordinary keys (as in
// Kubo's Go maps) in config keys, config bodies, dag-json, gateway headers and query strings.
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { createTestNode, filesOf, type TestNode } from '../../helpers/node.js'
import { configPlugin } from '../../../plugins/config/index.js'
import { dagPlugin } from '../../../plugins/dag/index.js'
import { getPath, mapGetKV, mapSetKV, setPath } from '../../../core/config/index.js'
import { mergeDeep, normalizeConfig, sortKeysDeep } from '../../../core/config/schema.js'
import { parseMediaType } from '../../../server/gateway/format.js'
import { fromEntriesOwn, getOwn, setOwn } from '../../../core/util/own.js'

use(chaiAsPromised)

/** Object.prototype and Function.prototype hold nothing new, and a fresh object is empty. */
function expectClean (): void {
  const fresh: Record<string, unknown> = {}
  expect(Object.getOwnPropertyNames(Object.prototype).filter(k => !BUILTIN.has(k))).to.deep.equal([])
  for (const k of ['x', 'y', 'polluted', 'a']) expect(fresh[k], k).to.equal(undefined)
  expect(Object.getPrototypeOf(fresh)).to.equal(Object.prototype)
}
const BUILTIN = new Set(Object.getOwnPropertyNames(Object.prototype))

describe('prototype pollution', () => {
  afterEach(expectClean)

  describe('own-property helpers', () => {
    it('setOwn/getOwn treat __proto__ as a key', () => {
      const o: Record<string, unknown> = {}
      setOwn(o, '__proto__', { x: 1 })
      expect(Object.keys(o)).to.deep.equal(['__proto__'])
      expect(getOwn(o, '__proto__')).to.deep.equal({ x: 1 })
      expect(getOwn({}, '__proto__')).to.equal(undefined)
      expect(getOwn({}, 'constructor')).to.equal(undefined)
      expect(JSON.stringify(fromEntriesOwn([['__proto__', 1], ['a', 2]]))).to.equal('{"__proto__":1,"a":2}')
    })

    it('config path helpers never follow an inherited key', () => {
      const cfg: Record<string, any> = { Datastore: { Spec: {} } }
      mapSetKV(cfg, 'Datastore.Spec.__proto__.x', '1')
      setPath(cfg, ['Datastore', 'Spec', 'constructor', 'prototype', 'y'], 2)
      setPath(cfg, ['__proto__', 'polluted'], true)
      expect(JSON.stringify(cfg)).to.equal('{"Datastore":{"Spec":{"__proto__":{"x":"1"},"constructor":{"prototype":{"y":2}}}},"__proto__":{"polluted":true}}')
      expect(mapGetKV(cfg, 'Datastore.Spec.__proto__')).to.deep.equal({ x: '1' })
      expect(getPath({}, ['__proto__'])).to.equal(undefined)
      expect(getPath({}, ['constructor', 'prototype'])).to.equal(undefined)
      expect(() => mapGetKV({ A: {} }, 'A.__proto__')).to.throw('A.__proto__ not found')
      expect(() => mapGetKV({ A: {} }, 'A.constructor')).to.throw('A.constructor not found')
    })

    it('merge, sort and normalise keep __proto__ as data', () => {
      const right = JSON.parse('{"__proto__":{"polluted":1},"a":{"__proto__":{"x":1}}}')
      const merged = mergeDeep({ a: {} }, right)
      expect(JSON.stringify(merged)).to.equal('{"a":{"__proto__":{"x":1}},"__proto__":{"polluted":1}}')
      expect(JSON.stringify(sortKeysDeep(right))).to.equal('{"__proto__":{"polluted":1},"a":{"__proto__":{"x":1}}}')
      const n = normalizeConfig(JSON.parse('{"Datastore":{"Spec":{"__proto__":{"x":1}}},"API":{"HTTPHeaders":{"__proto__":["a"]}}}'))
      expect(JSON.stringify((n.Datastore as any).Spec)).to.equal('{"__proto__":{"x":1}}')
      expect(JSON.stringify((n.API as any).HTTPHeaders)).to.equal('{"__proto__":["a"]}')
    })

    it('media type parameters named __proto__ are plain parameters', () => {
      const { params } = parseMediaType('application/vnd.ipld.car; __proto__=x; constructor=y')
      expect(Object.getPrototypeOf(params)).to.equal(Object.prototype)
      expect(getOwn(params, '__proto__')).to.equal('x')
      expect(getOwn(params, 'constructor')).to.equal('y')
    })
  })

  describe('through the commands', () => {
    let node: TestNode
    beforeEach(async () => { node = await createTestNode({ plugins: [configPlugin(), dagPlugin()] }) })
    afterEach(async () => { await node.stop() })

    it('config Datastore.Spec.__proto__.x 1 stores an ordinary key, as Kubo does', async () => {
      expect(await node.invoke('config', { args: ['Datastore.Spec.__proto__.x', '1'] })).to.deep.equal({ Key: 'Datastore.Spec.__proto__.x', Value: '1' })
      expect(await node.invoke('config', { args: ['Datastore.Spec.__proto__'] })).to.deep.equal({ Key: 'Datastore.Spec.__proto__', Value: { x: '1' } })
      const spec = (node.container.cradle.config.get().Datastore as any).Spec
      expect(Object.keys(spec)).to.include('__proto__')
      expect(Object.getPrototypeOf(spec)).to.equal(Object.prototype)
    })

    it('refuses keys outside the config struct with Kubo\'s errors', async () => {
      await expect(node.invoke('config', { args: ['Datastore.__proto__', '1'] })).to.be.rejectedWith('failed to set config value: Datastore.__proto__ not found (maybe use --json?)')
      await expect(node.invoke('config', { args: ['__proto__.x', '1'] })).to.be.rejectedWith('failed to set config value: __proto__ not found (maybe use --json?)')
      await expect(node.invoke('config', { args: ['constructor.prototype.x', '1'] })).to.be.rejectedWith('failed to set config value: constructor not found (maybe use --json?)')
      await expect(node.invoke('config', { args: ['Foo.constructor', '1'] })).to.be.rejectedWith('failed to set config value: Foo not found (maybe use --json?)')
      await expect(node.invoke('config', { args: ['__proto__'] })).to.be.rejected
      await expect(node.invoke('config', { args: ['Datastore.constructor'] })).to.be.rejected
    })

    it('config --json with __proto__ inside the value, and config replace with __proto__ keys', async () => {
      await node.invoke('config', { args: ['API.HTTPHeaders', '{"__proto__":["x"],"constructor":["y"]}'], options: { json: true } })
      expect(JSON.stringify((node.container.cradle.config.get().API as any).HTTPHeaders)).to.equal('{"__proto__":["x"],"constructor":["y"]}')
      const next = node.container.cradle.config.get() as Record<string, any>
      delete next.Identity.PrivKey
      delete next.Plugins
      const body = JSON.stringify(next).replace(/^\{/, '{"__proto__":{"polluted":true},"Plugins":{"Plugins":{"__proto__":{"Disabled":true}}},')
      await node.invoke('config/replace', { files: filesOf({ content: body }) })
      const cfg = node.container.cradle.config.get() as Record<string, any>
      expect(Object.getPrototypeOf(cfg)).to.equal(Object.prototype)
      expect(Object.getPrototypeOf(cfg.Plugins.Plugins)).to.equal(Object.prototype)
      expect(JSON.stringify(cfg.Plugins.Plugins)).to.equal('{"__proto__":{"Disabled":true}}')
    })

    it('dag put dag-json with __proto__ and constructor keys keeps them as data', async () => {
      const [row] = await node.invoke('dag/put', { files: filesOf({ content: '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}' }) }) as Array<{ Cid: { '/': string } }>
      const back = await node.invoke('dag/get', { args: [row.Cid['/']], options: { 'output-codec': 'dag-json' } })
      const text = Buffer.from(back as Uint8Array).toString('utf8')
      expect(text).to.equal('{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}')
      const [r2] = await node.invoke('dag/put', { files: filesOf({ content: '{"a":1}' }), options: { 'input-codec': 'json', 'store-codec': 'json' } }) as Array<{ Cid: { '/': string } }>
      expect(r2.Cid['/']).to.be.a('string')
    })
  })
})
