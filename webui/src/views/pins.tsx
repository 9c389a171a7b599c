// Pins: `pin ls --names` by type, `pin add --name`, `pin rm`, `pin verify --verbose`.
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { call, stream } from '../api'
import { act, confirmDialog, ErrorBox, Section, short, useApi } from '../ui'

interface Verify { Cid: string, Ok: boolean, BadNodes?: Array<{ Cid: string, Err: string }> }
const SHOWN = 500

export function PinsView (): JSX.Element {
  const [type, setType] = useState('recursive')
  const pins = useApi(async () => {
    const r = await call<{ Keys: Record<string, { Type: string, Name?: string }> | null }>('pin/ls', { type, names: true })
    return Object.entries(r.Keys ?? {}).map(([cid, v]) => ({ cid, type: v.Type, name: v.Name ?? '' }))
  }, [type])
  const [cid, setCid] = useState('')
  const [name, setName] = useState('')
  const [recursive, setRecursive] = useState(true)
  const [verify, setVerify] = useState<{ running: boolean, results?: Verify[], error?: unknown }>({ running: false })

  const add = async (e: Event): Promise<void> => {
    e.preventDefault()
    const c = cid.trim()
    if (c === '') return
    if (await act('Pin', async () => await call('pin/add', { arg: c, recursive, name: name.trim() === '' ? undefined : name.trim() }), `Pinned ${short(c)}`)) {
      setCid(''); setName(''); pins.reload()
    }
  }
  const remove = async (c: string, t: string): Promise<void> => {
    if (!await confirmDialog('Remove pin?', <p>Unpin <code class='wrap'>{c}</code>? Its blocks can then be garbage-collected.</p>, 'Unpin', true)) return
    if (await act('Unpin', async () => await call('pin/rm', { arg: c, recursive: t === 'recursive' }), `Unpinned ${short(c)}`)) pins.reload()
  }
  const runVerify = async (): Promise<void> => {
    setVerify({ running: true })
    try {
      setVerify({ running: false, results: await stream<Verify>('pin/verify', { verbose: true }) })
    } catch (error) { setVerify({ running: false, error }) }
  }
  const bad = verify.results?.filter(r => !r.Ok) ?? []
  const list = pins.data ?? []

  return (
    <div class='rows'>
      <Section title='Pin content' id='pin-add'>
        <form class='inline wrap-form' onSubmit={(e) => { void add(e) }}>
          <label class='grow field'><span>CID or path</span>
            <input value={cid} onInput={(e) => setCid((e.currentTarget as HTMLInputElement).value)} placeholder='bafy… or /ipfs/…' spellcheck={false} required />
          </label>
          <label class='field'><span>Name (optional)</span>
            <input value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
          </label>
          <label class='check'><input type='checkbox' checked={recursive} onChange={(e) => setRecursive((e.currentTarget as HTMLInputElement).checked)} /> Recursive</label>
          <button type='submit' class='primary'>Pin</button>
        </form>
      </Section>
      <Section title={`Pins${pins.data != null ? ` (${list.length})` : ''}`} id='pin-list' actions={
        <>
          <label class='inline-label'>Type{' '}
            <select value={type} onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value)}>
              {['recursive', 'direct', 'indirect', 'all'].map(t => <option key={t} value={t}>{t}</option>)}
            </select>
          </label>
          <button type='button' onClick={() => { void runVerify() }} disabled={verify.running}>{verify.running ? 'Verifying…' : 'Verify pins'}</button>
        </>}>
        {verify.results != null && (
          <p role='status' class={bad.length === 0 ? 'ok' : 'error'} data-testid='verify'>
            {bad.length === 0 ? `All ${verify.results.length} pins verified: every block is present and intact.` : `${bad.length} of ${verify.results.length} pins have missing or damaged blocks.`}
          </p>
        )}
        {bad.length > 0 && <ul class='mono'>{bad.map(b => <li key={b.Cid}>{b.Cid}: {(b.BadNodes ?? []).map(n => `${short(n.Cid)} ${n.Err}`).join('; ')}</li>)}</ul>}
        <ErrorBox error={verify.error} what='Verify' />
        <ErrorBox error={pins.error} what='Pins' />
        {pins.data != null && (list.length === 0
          ? <p class='empty'>No {type === 'all' ? '' : type + ' '}pins.</p>
          : (
            <div class='table-wrap'>
              <table class='list' data-testid='pins'>
                <thead><tr><th scope='col'>CID</th><th scope='col'>Name</th><th scope='col'>Type</th><th scope='col'><span class='sr'>Actions</span></th></tr></thead>
                <tbody>
                  {list.slice(0, SHOWN).map(p => (
                    <tr key={p.cid}>
                      <td class='mono'><a href={'#/inspect/' + p.cid} title={p.cid}>{short(p.cid, 8)}</a></td>
                      <td>{p.name || <span class='muted'>–</span>}</td>
                      <td>{p.type}</td>
                      <td>{p.type !== 'indirect' && <button type='button' class='small' onClick={() => { void remove(p.cid, p.type) }} aria-label={`Unpin ${p.cid}`}>Unpin</button>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {list.length > SHOWN && <p class='muted'>Showing {SHOWN} of {list.length}.</p>}
            </div>))}
      </Section>
    </div>
  )
}
