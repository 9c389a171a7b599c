// IPNS keys: `key ls -l`, `key gen`, `key rename`, `key rm`, `name publish`.
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { call } from '../api'
import { act, ask, confirmDialog, Copy, ErrorBox, Section, toast, useApi } from '../ui'

interface Key { Name: string, Id: string }

export function KeysView (): JSX.Element {
  const keys = useApi(async () => (await call<{ Keys: Key[] | null }>('key/ls', { l: true })).Keys ?? [], [])
  const [name, setName] = useState('')
  const [type, setType] = useState('ed25519')
  const [published, setPublished] = useState<{ Name: string, Value: string } | null>(null)

  const gen = async (e: Event): Promise<void> => {
    e.preventDefault()
    const n = name.trim()
    if (n === '') return
    if (await act('Generate key', async () => await call('key/gen', { arg: n, type, size: type === 'rsa' ? 2048 : undefined }), `Generated key ${n}`)) { setName(''); keys.reload() }
  }
  const rename = async (k: Key): Promise<void> => {
    const a = await ask({ title: `Rename key ${k.Name}`, fields: [{ name: 'to', label: 'New name', value: k.Name }], ok: 'Rename' })
    if (a == null || a.to.trim() === '' || a.to.trim() === k.Name) return
    if (await act('Rename key', async () => await call('key/rename', { arg: [k.Name, a.to.trim()] }), `Renamed to ${a.to.trim()}`)) keys.reload()
  }
  const remove = async (k: Key): Promise<void> => {
    if (!await confirmDialog(`Remove key ${k.Name}?`, <p>The IPNS name <code class='wrap'>{k.Id}</code> can no longer be updated once its key is gone.</p>, 'Remove', true)) return
    if (await act('Remove key', async () => await call('key/rm', { arg: k.Name }), `Removed ${k.Name}`)) keys.reload()
  }
  const publish = async (k: Key): Promise<void> => {
    const a = await ask({
      title: `Publish with ${k.Name}`,
      message: <p>Point the IPNS name <code class='wrap'>/ipns/{k.Id}</code> at a path.</p>,
      fields: [{ name: 'path', label: 'Path', placeholder: '/ipfs/bafy…' }, { name: 'lifetime', label: 'Lifetime', value: '24h' }],
      ok: 'Publish'
    })
    if (a == null || a.path.trim() === '') return
    const path = a.path.trim().startsWith('/') ? a.path.trim() : `/ipfs/${a.path.trim()}`
    try {
      const r = await call<{ Name: string, Value: string }>('name/publish', { arg: path, key: k.Name, lifetime: a.lifetime.trim() || undefined, 'allow-offline': true })
      setPublished(r)
      toast(`Published ${r.Value}`)
    } catch (e) {
      await act('Publish', async () => { throw e })
    }
  }

  return (
    <div class='rows'>
      <Section title='Generate a key' id='k-gen'>
        <form class='inline wrap-form' onSubmit={(e) => { void gen(e) }}>
          <label class='grow field'><span>Name</span>
            <input value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} required spellcheck={false} />
          </label>
          <label class='field'><span>Type</span>
            <select value={type} onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value)}>
              <option value='ed25519'>ed25519</option><option value='rsa'>rsa (2048)</option>
            </select>
          </label>
          <button type='submit' class='primary'>Generate</button>
        </form>
      </Section>
      <Section title={`Keys${keys.data != null ? ` (${keys.data.length})` : ''}`} id='k-list'>
        <ErrorBox error={keys.error} what='Keys' />
        {published != null && <p role='status' class='ok' data-testid='published'>Published <code class='wrap'>/ipns/{published.Name}</code> → <code class='wrap'>{published.Value}</code></p>}
        {keys.data != null && (
          <div class='table-wrap'>
            <table class='list' data-testid='keys'>
              <thead><tr><th scope='col'>Name</th><th scope='col'>IPNS name</th><th scope='col'><span class='sr'>Actions</span></th></tr></thead>
              <tbody>
                {keys.data.map(k => (
                  <tr key={k.Name}>
                    <td>{k.Name}</td>
                    <td class='mono wrap'>{k.Id} <Copy text={k.Id} /></td>
                    <td class='row-buttons'>
                      <button type='button' class='small' onClick={() => { void publish(k) }} aria-label={`Publish with ${k.Name}`}>Publish</button>
                      {k.Name !== 'self' && <button type='button' class='small' onClick={() => { void rename(k) }} aria-label={`Rename ${k.Name}`}>Rename</button>}
                      {k.Name !== 'self' && <button type='button' class='small danger-text' onClick={() => { void remove(k) }} aria-label={`Remove ${k.Name}`}>Remove</button>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>)}
      </Section>
    </div>
  )
}
