import { expect } from 'chai'
import { Registry, assignArgs } from '../../../registry/registry.js'
import { defineCommand } from '../../../registry/define.js'
import type { CommandSpec, Plugin } from '../../../registry/types.js'
import { builtinPlugins } from '../../../plugins/index.js'

const cmd = (path: string[], extra: Partial<CommandSpec> = {}): CommandSpec => defineCommand({ path, description: 'd', output: 'single', run: () => ({}), ...extra })

describe('registry', () => {
  it('the built-in registry validates clean', () => {
    const r = new Registry()
    for (const p of builtinPlugins()) r.add(p)
    expect(r.validate()).to.deep.equal([])
  })

  it('rejects a duplicate path', () => {
    const r = new Registry()
    r.add({ name: 'a', commands: [cmd(['x'])] })
    expect(() => r.add({ name: 'b', commands: [cmd(['x'])] })).to.throw('duplicate command /x')
  })

  it('validate reports missing descriptions, replacements, arg order and option clashes', () => {
    const r = new Registry()
    const p: Plugin = {
      name: 't',
      commands: [
        cmd(['a'], { description: '' }),
        cmd(['b'], { status: 'removed' }),
        cmd(['c'], { args: [{ name: 'o', kind: 'string', description: '' }, { name: 'r', kind: 'string', required: true, description: '' }] }),
        cmd(['d'], { options: { e: { type: 'bool', aliases: ['enc'], description: '' } } })
      ]
    }
    r.add(p)
    const problems = r.validate()
    expect(problems).to.include('/a: no description')
    expect(problems).to.include('/b: removed without replacement')
    expect(problems).to.include('/c: required argument "r" after an optional one')
    expect(problems.some(x => x.startsWith('/d: option name "enc" clashes'))).to.equal(true)
  })

  it('removed commands fail with "removed, <replacement>"', async () => {
    const r = new Registry()
    r.add({ name: 't', commands: [cmd(['old'], { status: 'removed', replacement: "use 'ipfs new' instead" })] })
    expect(() => r.node(['old'])?.command?.run({} as never)).to.throw("removed, use 'ipfs new' instead")
  })

  it('resolves HTTP paths like go-ipfs-cmds', () => {
    const r = new Registry()
    r.add({ name: 't', groups: [{ path: ['grp'], description: 'g' }], commands: [cmd(['cat']), cmd(['grp', 'sub']), cmd(['hidden'], { http: false }), cmd(['hidden2'], { cliOnly: true })] })
    expect(r.resolveHttp(['cat'])?.node.path).to.deep.equal(['cat'])
    expect(r.resolveHttp(['cat', 'QmFoo'])).to.deep.include({ pathArg: 'QmFoo' })
    expect(r.resolveHttp(['cat', 'a', 'b'])).to.equal(undefined)
    expect(r.resolveHttp(['grp', 'nope'])).to.equal(undefined)
    expect(r.resolveHttp(['grp'])?.node.command).to.equal(undefined)
    expect(r.resolveHttp(['hidden'])).to.equal(undefined)
    expect(r.resolveHttp(['hidden2'])).to.equal(undefined)
    expect(r.resolveHttp([''])).to.equal(undefined)
  })

  it('inherits ancestor options (files --flush)', () => {
    const r = new Registry()
    r.add({ name: 't', groups: [{ path: ['files'], description: 'g', options: { flush: { type: 'bool', aliases: ['f'], default: true, description: '' } } }], commands: [cmd(['files', 'ls'])] })
    const p = r.prepare(['files', 'ls'], { query: [['f', ['false']]] })
    expect(p.values.flush).to.equal(false)
  })

  describe('argument assignment', () => {
    const c = cmd(['x'], { args: [{ name: 'key', kind: 'string', required: true, description: '' }, { name: 'value', kind: 'string', description: '' }] })
    it('takes required then optional', () => {
      expect(assignArgs(c, ['k'], undefined, false, false)).to.deep.equal(['k'])
      expect(assignArgs(c, ['k', 'v'], undefined, false, false)).to.deep.equal(['k', 'v'])
    })
    it('reports a missing required argument', () => {
      expect(() => assignArgs(c, [], undefined, false, false)).to.throw('argument "key" is required')
    })
    it('takes a missing stdin argument from the body, and all lines with bodyArgs', () => {
      const s = cmd(['y'], { bodyArgs: true, args: [{ name: 'ipfs-path', kind: 'string', required: true, variadic: true, stdin: true, description: '' }] })
      expect(assignArgs(s, [], ['a', 'b'], false, false)).to.deep.equal(['a', 'b'])
    })
    it('requires a file argument when there is no body', () => {
      const f = cmd(['z'], { args: [{ name: 'data', kind: 'file', required: true, description: '' }] })
      expect(() => assignArgs(f, [], undefined, false, false)).to.throw("file argument 'data' is required")
      expect(assignArgs(f, [], undefined, true, false)).to.deep.equal([])
    })
    it('the CLI rejects extra arguments', () => {
      expect(() => assignArgs(c, ['a', 'b', 'c'], undefined, false, true)).to.throw('expected 2 argument(s), got 3')
    })
  })

  it('tree() has Kubo\'s shape, root options, no CLI-only commands', () => {
    const r = new Registry()
    for (const p of builtinPlugins()) r.add(p)
    const tree = r.tree()
    expect(tree.Name).to.equal('ipfs')
    expect(tree.Options[0]).to.deep.equal({ Names: ['repo-dir'] })
    expect(tree.Options.map(o => o.Names[0])).to.have.length(15)
    expect(tree.Subcommands.map(s => s.Name)).to.not.include('daemon')
    expect(tree.Subcommands.map(s => s.Name)).to.not.include('init')
  })
})
