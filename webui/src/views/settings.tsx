// Settings: API/gateway/swarm addresses, the config as a validated editor (`config show` →
// `config replace`), profiles (`config profile apply`, dry run first), families from `/api/v0/commands`.
import type { JSX } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { call } from '../api'
import { act, confirmDialog, ErrorBox, Section, useApi } from '../ui'
import { diffConfig, validateConfig } from './config-check'

const PROFILES = ['server', 'local-discovery', 'test', 'default-networking', 'lowpower', 'announce-on', 'announce-off', 'randomports',
  'legacy-cid-v0', 'unixfs-v0-2015', 'unixfs-v1-2025', 'autoconf-on', 'autoconf-off']

export function SettingsView (): JSX.Element {
  const cfg = useApi(async () => await call<Record<string, any>>('config/show'), [])
  return (
    <div class='grid'>
      <ErrorBox error={cfg.error} what='Config' />
      {cfg.data != null && <Addresses cfg={cfg.data} reload={cfg.reload} />}
      {cfg.data != null && <Editor cfg={cfg.data} reload={cfg.reload} />}
      <Profiles reload={cfg.reload} />
      <Families plugins={cfg.data?.Plugins?.Plugins} />
    </div>
  )
}

const asLines = (v: unknown): string => Array.isArray(v) ? v.join('\n') : typeof v === 'string' ? v : ''

function Addresses ({ cfg, reload }: { cfg: Record<string, any>, reload: () => void }): JSX.Element {
  const fields = [['API', 'RPC API'], ['Gateway', 'Gateway'], ['Swarm', 'Swarm (libp2p)']] as const
  const [vals, setVals] = useState<Record<string, string>>({})
  useEffect(() => setVals(Object.fromEntries(fields.map(([k]) => [k, asLines(cfg.Addresses?.[k])]))), [cfg])
  const save = async (e: Event): Promise<void> => {
    e.preventDefault()
    for (const [k] of fields) {
      const lines = vals[k].split('\n').map(s => s.trim()).filter(s => s !== '')
      if (lines.some(l => !l.startsWith('/'))) { await act(`Addresses.${k}`, async () => { throw new Error('each address must be a multiaddr starting with /') }); return }
      const value = k === 'Swarm' || lines.length !== 1 ? lines : lines[0]
      if (JSON.stringify(value) === JSON.stringify(cfg.Addresses?.[k])) continue
      if (!await act(`Addresses.${k}`, async () => await call('config', { arg: [`Addresses.${k}`, JSON.stringify(value)], json: true }), `Saved Addresses.${k} (restart the daemon to apply)`)) return
    }
    reload()
  }
  return (
    <Section title='Addresses' id='set-addrs'>
      <form onSubmit={(e) => { void save(e) }} class='stack'>
        {fields.map(([k, label]) => (
          <label key={k} class='field'><span>{label} <code>Addresses.{k}</code></span>
            <textarea rows={k === 'Swarm' ? 3 : 1} value={vals[k] ?? ''} spellcheck={false} class='mono'
              onInput={(e) => setVals(v => ({ ...v, [k]: (e.currentTarget as HTMLTextAreaElement).value }))} />
          </label>
        ))}
        <p class='muted'>One multiaddr per line. Changes take effect when the daemon restarts.</p>
        <div><button type='submit' class='primary'>Save addresses</button></div>
      </form>
    </Section>
  )
}

function Editor ({ cfg, reload }: { cfg: Record<string, any>, reload: () => void }): JSX.Element {
  const original = JSON.stringify(cfg, null, 2)
  const [text, setText] = useState(original)
  const [problems, setProblems] = useState<string[] | null>(null)
  useEffect(() => { setText(original); setProblems(null) }, [original])
  const check = (): Record<string, unknown> | null => {
    const r = validateConfig(text, cfg)
    setProblems(r.errors)
    return r.errors.length === 0 ? r.value as Record<string, unknown> : null
  }
  const save = async (): Promise<void> => {
    const value = check()
    if (value == null) return
    const changes = diffConfig(cfg, value)
    if (changes.length === 0) { setProblems([]); return }
    if (!await confirmDialog('Replace the config?', <><p>{changes.length} change{changes.length === 1 ? '' : 's'}:</p><ul class='mono small-list'>{changes.slice(0, 30).map(c => <li key={c}>{c}</li>)}</ul><p>Most settings apply after a daemon restart.</p></>, 'Replace')) return
    const form = new FormData()
    form.append('file', new Blob([JSON.stringify(value, null, 2)], { type: 'application/octet-stream' }), 'config')
    if (await act('config replace', async () => await call('config/replace', {}, form), 'Config replaced')) reload()
  }
  const dirty = text !== original
  return (
    <Section title='Config' id='set-config' actions={
      <>
        <button type='button' onClick={() => check()}>Validate</button>
        <button type='button' onClick={() => { setText(original); setProblems(null) }} disabled={!dirty}>Revert</button>
        <button type='button' class='primary' onClick={() => { void save() }} disabled={!dirty}>Save</button>
      </>}>
      <label class='sr' for='config-editor'>Config JSON</label>
      <textarea id='config-editor' class='editor mono' spellcheck={false} value={text} rows={24}
        aria-invalid={problems != null && problems.length > 0} aria-describedby='config-problems'
        onInput={(e) => { setText((e.currentTarget as HTMLTextAreaElement).value); setProblems(null) }} />
      <div id='config-problems' aria-live='polite'>
        {problems != null && (problems.length === 0
          ? <p class='ok' data-testid='config-ok'>{dirty ? 'The config is valid.' : 'No changes.'}</p>
          : <ul class='error' data-testid='config-errors'>{problems.map(p => <li key={p}>{p}</li>)}</ul>)}
      </div>
    </Section>
  )
}

function Profiles ({ reload }: { reload: () => void }): JSX.Element {
  const [profile, setProfile] = useState(PROFILES[0])
  const [preview, setPreview] = useState<{ profile: string, changes: string[] } | null>(null)
  const [error, setError] = useState<unknown>()
  const dry = async (): Promise<void> => {
    setError(undefined)
    try {
      const r = await call<{ OldCfg: Record<string, unknown>, NewCfg: Record<string, unknown> }>('config/profile/apply', { arg: profile, 'dry-run': true })
      setPreview({ profile, changes: diffConfig(r.OldCfg, r.NewCfg) })
    } catch (e) { setError(e); setPreview(null) }
  }
  const apply = async (): Promise<void> => {
    if (await act('Apply profile', async () => await call('config/profile/apply', { arg: profile }), `Applied profile ${profile}`)) { setPreview(null); reload() }
  }
  return (
    <Section title='Profiles' id='set-profiles'>
      <div class='inline wrap-form'>
        <label class='field'><span>Profile</span>
          <select value={profile} onChange={(e) => { setProfile((e.currentTarget as HTMLSelectElement).value); setPreview(null) }}>
            {PROFILES.map(p => <option key={p} value={p}>{p}</option>)}
          </select>
        </label>
        <button type='button' onClick={() => { void dry() }}>Preview changes</button>
        <button type='button' class='primary' onClick={() => { void apply() }} disabled={preview?.profile !== profile}>Apply</button>
      </div>
      <ErrorBox error={error} what='Profile' />
      {preview != null && (preview.changes.length === 0
        ? <p class='muted' data-testid='profile-preview'>Applying {preview.profile} changes nothing.</p>
        : <div data-testid='profile-preview'><p>{preview.profile} changes {preview.changes.length} key{preview.changes.length === 1 ? '' : 's'}:</p><ul class='mono small-list'>{preview.changes.map(c => <li key={c}>{c}</li>)}</ul></div>)}
    </Section>
  )
}

interface Cmd { Name: string, Subcommands: Cmd[] }

function Families ({ plugins }: { plugins?: Record<string, { Disabled?: boolean }> | null }): JSX.Element {
  const cmds = useApi(async () => await call<Cmd>('commands'), [])
  const disabled = Object.entries(plugins ?? {}).filter(([, v]) => v?.Disabled === true).map(([k]) => k)
  const names = (cmds.data?.Subcommands ?? []).map(c => c.Name).sort()
  return (
    <Section title='Command families' id='set-families'>
      <ErrorBox error={cmds.error} what='commands' />
      <p class='muted'>What this node's RPC API offers (<code>/api/v0/commands</code>). Disable a plugin with <code>Plugins.Plugins.&lt;name&gt;.Disabled</code>.</p>
      <ul class='chips' data-testid='families'>{names.map(n => <li key={n}>{n}</li>)}</ul>
      {disabled.length > 0 && <p>Disabled in config: {disabled.map(d => <code key={d}>{d} </code>)}</p>}
    </Section>
  )
}
