// Plugins from config: a third-party plugin (the README's plain-object example, importing nothing from
// tsipfs) loaded from Plugins.Plugins.<name>.Path with its .Config, and a built-in family disabled.
import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { startDaemon, type Daemon } from '../helpers/daemon.js'
import { rpc } from '../helpers/rpc.js'

const HELLO = `export default (init) => ({
  name: 'hello',
  commands: [{
    path: ['hello', 'world'],
    description: 'Say hello.',
    options: { name: { type: 'string', description: 'who' } },
    output: 'single',
    run: async ({ options }) => ({ Message: 'hello ' + (options.name ?? init.greet) })
  }]
})
`

describe('plugins from config (spawned daemon)', function () {
  this.timeout(60_000)
  let d: Daemon
  let dir: string

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-plugin-'))
    const file = path.join(dir, 'hello.mjs')
    writeFileSync(file, HELLO)
    d = await startDaemon({
      config: {
        'Plugins.Plugins.hello': { Path: file, Config: { greet: 'world' } },
        'Plugins.Plugins.cid': { Disabled: true }
      }
    })
  })
  after(async () => {
    await d?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('serves a third-party plugin\'s command with its Config', async () => {
    expect((await rpc(d.url, '/api/v0/hello/world')).body).to.equal('{"Message":"hello world"}\n')
    expect((await rpc(d.url, '/api/v0/hello/world?name=you')).json()).to.deep.equal({ Message: 'hello you' })
  })

  it('lists it in /api/v0/commands and runs it from the CLI', async () => {
    const tree = (await rpc(d.url, '/api/v0/commands')).json()
    const hello = tree.Subcommands.find((s: { Name: string }) => s.Name === 'hello')
    expect(hello.Subcommands.map((s: { Name: string }) => s.Name)).to.deep.equal(['world'])
    const r = d.cli(['hello', 'world', '--name', 'cli', '--enc=json'])
    expect(r.status, r.stderr).to.equal(0)
    expect(JSON.parse(r.stdout)).to.deep.equal({ Message: 'hello cli' })
  })

  it('a disabled built-in family is gone over HTTP and from the CLI', async () => {
    const r = await rpc(d.url, '/api/v0/cid/bases')
    expect(r.status).to.equal(404)
    const c = d.cli(['cid', 'bases'])
    expect(c.status).to.equal(1)
    expect(c.stderr).to.include('Unknown Command "cid"')
  })
})
