// The web UI's Pins, IPNS keys and Settings views clicked through in Debian's Chromium against a spawned
// daemon, and the sign-in asked for by API.Authorizations. Screenshots: .test-artifacts/webui/.
import { expect } from 'chai'
import { startDaemon, type Daemon } from '../helpers/daemon.js'
import { multipart, rpc } from '../helpers/rpc.js'
import { foreignOrigins, freePort, openBrowser, type Browser } from '../helpers/webui.js'

describe('web UI views: pins, keys, settings, sign-in', function () {
  this.timeout(180_000)
  let d: Daemon
  let gw: string
  let b: Browser
  const api = async (cmd: string, init: { body?: Buffer, headers?: Record<string, string> } = {}): Promise<any> => {
    const r = await rpc(d.url, `/api/v0/${cmd}`, init)
    expect(r.status, `${cmd}: ${r.body}`).to.equal(200)
    return r.body.trim() === '' ? undefined : r.json()
  }
  const addText = async (text: string): Promise<string> => {
    const mp = multipart([{ filename: 'f.txt', content: Buffer.from(text) }])
    return (await api('add?pin=false', { body: mp.body, headers: { 'Content-Type': mp.contentType } })).Hash
  }
  /** whether the daemon has a command (404 = not built yet) */
  const has = async (cmd: string): Promise<boolean> => (await rpc(d.url, `/api/v0/${cmd}`)).status !== 404

  before(async () => {
    const port = await freePort()
    d = await startDaemon({ config: { 'Addresses.Gateway': `/ip4/127.0.0.1/tcp/${port}` } })
    gw = `http://127.0.0.1:${port}`
    b = await openBrowser()
  })
  after(async () => {
    if (b != null) {
      const bad = foreignOrigins(b.requests, [d.url, gw])
      await b.close()
      expect(bad, 'requests to hosts other than the daemon').to.deep.equal([])
    }
    await d?.stop()
  })

  it('Pins: adds a named pin, lists names and types, verifies, removes', async () => {
    const { page } = b
    const cid = await addText('pin me from the web UI\n')
    await page.goto(`${d.url}/webui/#/pins`)
    await page.getByLabel('CID or path').fill(cid)
    await page.getByLabel('Name (optional)').fill('from-webui')
    await page.getByRole('button', { name: 'Pin', exact: true }).click()
    const row = page.getByTestId('pins').getByRole('row', { name: /from-webui/ })
    await row.waitFor()
    expect(await row.textContent()).to.include('recursive')
    expect((await api(`pin/ls?arg=${cid}&names=true`)).Keys[cid]).to.deep.equal({ Type: 'recursive', Name: 'from-webui' })
    // the type filter: `all` lists the empty folder pinned by init as well
    await page.getByLabel('Type').selectOption('all')
    await page.getByTestId('pins').getByRole('row').nth(2).waitFor()
    await page.getByRole('button', { name: 'Verify pins' }).click()
    expect(await page.getByTestId('verify').textContent()).to.match(/^All \d+ pins verified/)
    await b.shot('pins')
    await page.getByRole('button', { name: `Unpin ${cid}` }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Unpin' }).click()
    await page.getByRole('button', { name: `Unpin ${cid}` }).waitFor({ state: 'detached' })
    expect((await rpc(d.url, `/api/v0/pin/ls?arg=${cid}`)).status).to.equal(500)
  })

  it('IPNS keys: generates, renames, publishes, removes', async () => {
    const { page } = b
    await page.goto(`${d.url}/webui/#/keys`)
    await page.getByTestId('keys').getByRole('cell', { name: 'self', exact: true }).waitFor()
    await page.getByLabel('Name').fill('webui-key')
    await page.getByRole('button', { name: 'Generate' }).click()
    await page.getByTestId('keys').getByRole('cell', { name: 'webui-key', exact: true }).waitFor()
    const made = (await api('key/ls?l=true')).Keys.find((k: any) => k.Name === 'webui-key')
    expect(made?.Id).to.match(/^k51/)
    await page.getByRole('button', { name: 'Rename webui-key' }).click()
    await page.getByLabel('New name').fill('webui-renamed')
    await page.getByRole('dialog').getByRole('button', { name: 'Rename' }).click()
    await page.getByTestId('keys').getByRole('cell', { name: 'webui-renamed', exact: true }).waitFor()
    expect((await api('key/ls?l=true')).Keys.find((k: any) => k.Name === 'webui-renamed')?.Id).to.equal(made.Id)
    // publish: the IPNS record when the node has `name publish`, else the UI says it is not available
    const cid = await addText('published from the web UI\n')
    await page.getByRole('button', { name: 'Publish with webui-renamed' }).click()
    await page.getByLabel('Path').fill(`/ipfs/${cid}`)
    await page.getByRole('dialog').getByRole('button', { name: 'Publish' }).click()
    if (await has('name/publish')) {
      await page.getByTestId('published').getByText(`/ipfs/${cid}`).waitFor()
      const r = await api(`name/resolve?arg=${made.Id}&offline=true`)
      expect(r.Path).to.equal(`/ipfs/${cid}`)
    } else {
      await page.getByText('Publish: not available on this node (command not found)').waitFor()
    }
    await b.shot('keys')
    await page.getByRole('button', { name: 'Remove webui-renamed' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click()
    await page.getByTestId('keys').getByRole('cell', { name: 'webui-renamed', exact: true }).waitFor({ state: 'detached' })
    expect((await api('key/ls')).Keys.map((k: any) => k.Name)).to.deep.equal(['self'])
  })

  it('Settings: shows addresses and families, refuses a bad config, replaces a good one, applies a profile after a preview', async () => {
    const { page } = b
    await page.goto(`${d.url}/webui/#/settings`)
    const apiField = page.getByLabel('RPC API Addresses.API')
    await apiField.waitFor()
    expect(await apiField.inputValue()).to.equal((await api('config?arg=Addresses.API')).Value)
    expect(await page.getByLabel('Gateway Addresses.Gateway').inputValue()).to.equal(gw.replace('http://127.0.0.1:', '/ip4/127.0.0.1/tcp/'))
    await page.getByTestId('families').locator('li').first().waitFor() // from /api/v0/commands, a request of its own
    const families = await page.getByTestId('families').locator('li').allTextContents()
    expect(families).to.include.members(['add', 'config', 'files', 'key', 'pin'])
    // the editor: bad JSON, then a bad shape, are refused before anything is sent
    const editor = page.getByLabel('Config JSON')
    const original = await editor.inputValue()
    await editor.fill(original.replace(/^\{/, '{,'))
    await page.getByRole('button', { name: 'Validate' }).click()
    expect(await page.getByTestId('config-errors').textContent()).to.include('Not valid JSON')
    const cfg = JSON.parse(original)
    await editor.fill(JSON.stringify({ ...cfg, Datastore: { ...cfg.Datastore, StorageMax: 12 }, Bootstrap: 'nope' }, null, 2))
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    const errors = await page.getByTestId('config-errors').textContent()
    expect(errors).to.include('Datastore.StorageMax must be a size')
    expect(errors).to.include('Bootstrap must be a list of multiaddrs')
    await b.shot('settings-invalid')
    // a good edit is replaced after a confirmation listing the changed keys
    await editor.fill(JSON.stringify({ ...cfg, Datastore: { ...cfg.Datastore, StorageMax: '20GB' } }, null, 2))
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByRole('dialog').getByText('Datastore.StorageMax').waitFor()
    await page.getByRole('dialog').getByRole('button', { name: 'Replace' }).click()
    await page.getByText('Config replaced').waitFor()
    expect((await api('config?arg=Datastore.StorageMax')).Value).to.equal('20GB')
    // a profile: preview (dry run) lists the keys it changes, then apply
    await page.getByRole('combobox', { name: 'Profile' }).selectOption('lowpower')
    await page.getByRole('button', { name: 'Preview changes' }).click()
    // the preview is a dry-run request: wait for its list before reading it
    await page.getByTestId('profile-preview').locator('li').first().waitFor()
    const changed = await page.getByTestId('profile-preview').locator('li').allTextContents()
    expect(changed.length).to.be.greaterThan(0)
    const before = await api('config/show')
    await page.getByRole('button', { name: 'Apply', exact: true }).click()
    await page.getByText('Applied profile lowpower').waitFor()
    const after = await api('config/show')
    const at = (c: any, key: string): unknown => key.split('.').reduce((v: any, k) => v?.[k], c)
    expect(changed.some(k => JSON.stringify(at(before, k)) !== JSON.stringify(at(after, k))), 'the listed keys changed').to.equal(true)
    await page.getByRole('combobox', { name: 'Profile' }).scrollIntoViewIfNeeded()
    await b.shot('settings')
  })

  it('asks for an API.Authorizations secret, then works with it', async () => {
    const port = await freePort()
    const locked = await startDaemon({
      config: {
        'Addresses.Gateway': `/ip4/127.0.0.1/tcp/${port}`,
        'API.Authorizations': { alice: { AuthSecret: 'bearer:webui-secret', AllowedPaths: ['/api/v0'] } }
      }
    })
    const lb = await openBrowser()
    try {
      const { page } = lb
      await page.goto(`${locked.url}/webui/`)
      const dialog = page.getByRole('dialog', { name: 'API access' })
      await dialog.waitFor()
      await lb.shot('auth')
      await page.getByLabel('Secret').fill('bearer:wrong')
      await page.getByRole('button', { name: 'Sign in' }).last().click()
      await dialog.waitFor() // refused again
      await page.getByLabel('Secret').fill('bearer:webui-secret')
      await page.getByRole('button', { name: 'Sign in' }).last().click()
      const id = (await rpc(locked.url, '/api/v0/id', { headers: { Authorization: 'Bearer webui-secret' } })).json()
      await page.getByTestId('peer-id').getByText(id.ID).waitFor()
      expect(await page.getByRole('button', { name: 'Signed in' }).count()).to.equal(1)
      expect(foreignOrigins(lb.requests, [locked.url, `http://127.0.0.1:${port}`])).to.deep.equal([])
    } finally {
      await lb.close()
      await locked.stop()
    }
  })
})
