import { expect } from 'chai'
import { Registry } from '../../../registry/registry.js'
import { lazyPlugins, nodePlugins, LOAD_COMMAND, type LazyCommand } from '../../../registry/manifest.js'
import { buildManifest, loadManifest, manifestPlugins } from '../../../server/cli-manifest.js'
import { builtinPlugins } from '../../../plugins/index.js'
import type { CommandSpec } from '../../../registry/types.js'

/** Everything the CLI reads from a tree node before it loads the command. */
function metadataOf (r: Registry): unknown[] {
  return [...r.walk()].map(node => ({
    path: node.path.join('/'),
    plugin: node.plugin,
    description: r.description(node),
    status: r.status(node.path),
    http: r.httpAllowed(node.path),
    noRepo: r.noRepo(node.path),
    runnable: node.command != null,
    cli: node.command?.cli,
    cliOnly: node.command?.cliOnly,
    repoAccess: node.command?.repoAccess,
    help: node.command?.help ?? node.group?.help,
    args: node.command?.args,
    contentType: node.command?.contentType,
    options: [...r.optionTable(node.path)].map(([name, o]) => [name, o.canonical, o.spec])
  }))
}

describe('command manifest (the CLI\'s lazy tree)', function () {
  this.timeout(60_000)
  let real: Registry
  let lazy: Registry

  before(async () => {
    real = new Registry()
    for (const p of builtinPlugins()) real.add(p)
    lazy = new Registry()
    for (const p of await manifestPlugins()) lazy.add(p)
  })

  it('declares the same tree, options, arguments and statuses as the plugins', () => {
    expect(metadataOf(lazy)).to.deep.equal(metadataOf(real))
    expect(lazy.tree()).to.deep.equal(real.tree())
  })

  it('loads each command\'s own declaration when asked (removed ones keep their stub)', async () => {
    for (const node of real.walk()) {
      if (node.command == null) continue
      const declared = lazy.node(node.path)?.command as LazyCommand
      expect(declared[LOAD_COMMAND], node.path.join('/')).to.be.a('function')
      const loaded = await lazy.load(node.path)
      if (node.command.status === 'removed') {
        expect(loaded?.replacement).to.equal(node.command.replacement)
        expect(() => loaded?.run({} as never)).to.throw().with.property('name', 'RemovedCommandError')
      } else {
        // the very object the plugin declares (its run, text encoder and CLI hooks)
        expect(loaded, node.path.join('/')).to.equal(node.command)
      }
      expect((lazy.node(node.path)?.command as LazyCommand)[LOAD_COMMAND]).to.equal(undefined)
    }
  })

  it('a declaration not loaded refuses to run', () => {
    const r = new Registry()
    for (const p of lazyPlugins({ format: 1, stamp: 'x', plugins: [{ name: 'version', module: 'nowhere.js', factory: 'f', groups: [], commands: [{ spec: { path: ['version'], description: 'd' } }] }] }, async () => ({}))) r.add(p)
    const cmd = r.node(['version'])?.command as CommandSpec
    expect(() => cmd.run({} as never)).to.throw('command /version is declared by the manifest and was not loaded')
  })

  it('finds a command through its plugin factory when it is not exported, and says so when it is gone', async () => {
    const manifest = await buildManifest('test')
    const version = manifest.plugins.find(p => p.name === 'version')!
    const entry = version.commands.find(c => (c.spec.path as string[]).join('/') === 'version')!
    const importer = async (m: string): Promise<Record<string, unknown>> => await import(new URL(`../../../${m}`, import.meta.url).href)
    const unexported = { ...manifest, plugins: [{ ...version, commands: [{ spec: entry.spec }, { spec: { path: ['version', 'gone'], description: 'd' } }] }] }
    const r = new Registry()
    for (const p of lazyPlugins(unexported, importer)) r.add(p)
    expect(await r.load(['version'])).to.equal(real.node(['version'])?.command)
    await r.load(['version', 'gone']).then(() => expect.fail('loaded a command no plugin declares'), (err: Error) => {
      expect(err.message).to.equal('plugin "version" no longer declares /version/gone: rebuild the manifest')
    })
  })

  it('a node built from it gets each plugin\'s services (register, requires) with its commands still declarations', async () => {
    const node = await nodePlugins(await manifestPlugins())
    const registering = builtinPlugins().filter(p => p.register != null)
    expect(registering.map(p => p.name)).to.include.members(['files', 'pin-remote', 'filestore', 'p2p'])
    for (const p of registering) {
      const got = node.find(n => n.name === p.name)!
      // the plugin's own function, loaded from its services module
      expect(got.register, p.name).to.equal(p.register)
      expect(got.requires, p.name).to.deep.equal(p.requires)
      for (const c of got.commands) expect((c as LazyCommand)[LOAD_COMMAND], c.path.join('/')).to.be.a('function')
    }
  })

  it('is saved beside the build and reused while the build is unchanged', async () => {
    const a = await loadManifest()
    const b = await loadManifest()
    expect(b.stamp).to.equal(a.stamp)
    expect(b.plugins.map(p => p.name)).to.deep.equal(builtinPlugins().map(p => p.name))
  })
})
