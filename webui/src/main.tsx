// The shell: header, navigation (hash routes), theme, sign-in for API.Authorizations.
import { render, type JSX } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { hasSecret, onDenied, setSecret } from './api'
import { ask, DialogHost, Toasts } from './ui'
import { StatusView } from './views/status'
import { FilesView, InspectView } from './views/files'
import { PeersView } from './views/peers'
import { PinsView } from './views/pins'
import { KeysView } from './views/keys'
import { SettingsView } from './views/settings'
import './style.css'

const NAV = [
  ['status', 'Status'],
  ['files', 'Files'],
  ['peers', 'Peers'],
  ['pins', 'Pins'],
  ['keys', 'IPNS keys'],
  ['settings', 'Settings']
] as const

// row menus (<details class="menu">): one open at a time, closed by a click elsewhere or Escape
document.addEventListener('click', (e) => {
  for (const d of document.querySelectorAll<HTMLDetailsElement>('details.menu[open]')) {
    if (!d.contains(e.target as Node)) d.open = false
  }
})
document.addEventListener('keydown', (e) => {
  if (e.key !== 'Escape') return
  const d = (e.target as Element | null)?.closest?.('details.menu[open]') as HTMLDetailsElement | null
  if (d != null) { d.open = false; d.querySelector('summary')?.focus() }
})

function useHash (): string {
  const [hash, setHash] = useState(location.hash)
  useEffect(() => {
    const on = (): void => setHash(location.hash)
    addEventListener('hashchange', on)
    return () => removeEventListener('hashchange', on)
  }, [])
  return hash
}

type Theme = 'auto' | 'light' | 'dark'
const applyTheme = (t: Theme): void => {
  if (t === 'auto') delete document.documentElement.dataset.theme
  else document.documentElement.dataset.theme = t
}
applyTheme((localStorage.getItem('tsipfs.theme') as Theme | null) ?? 'auto')
function useTheme (): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>((localStorage.getItem('tsipfs.theme') as Theme | null) ?? 'auto')
  const next = (): void => {
    const t: Theme = theme === 'auto' ? 'dark' : theme === 'dark' ? 'light' : 'auto'
    applyTheme(t)
    localStorage.setItem('tsipfs.theme', t)
    setTheme(t)
  }
  return [theme, next]
}

async function signIn (): Promise<void> {
  const a = await ask({
    title: 'API access',
    message: <p>This node's RPC API asks for a secret (<code>API.Authorizations</code>). Enter it as in the config: <code>bearer:token</code>, <code>basic:user:password</code>, or a bare token.</p>,
    fields: [
      { name: 'secret', label: 'Secret', placeholder: 'bearer:…' },
      { name: 'remember', label: 'Remember on this browser', type: 'checkbox' }
    ],
    ok: 'Sign in'
  })
  if (a != null) setSecret(a.secret, a.remember === 'true')
}

function App (): JSX.Element {
  const hash = useHash()
  const [theme, nextTheme] = useTheme()
  const [, setAuthed] = useState(hasSecret())
  const main = useRef<HTMLElement>(null)
  const parts = hash.replace(/^#\/?/, '').split('/')
  const route = parts[0] === '' ? 'status' : parts[0]
  const rest = parts.slice(1).map(s => { try { return decodeURIComponent(s) } catch { return s } })

  useEffect(() => {
    let pending = false
    const on = (): void => {
      if (pending) return
      pending = true
      void signIn().finally(() => { pending = false; setAuthed(hasSecret()) })
    }
    onDenied.add(on)
    return () => { onDenied.delete(on) }
  }, [])
  useEffect(() => {
    const label = NAV.find(([k]) => k === route)?.[1] ?? 'Inspect'
    document.title = `${label} · tsipfs`
    if (document.activeElement?.closest('nav') != null) main.current?.focus({ preventScroll: true })
  }, [route])

  let view: JSX.Element
  switch (route) {
    case 'files': view = <FilesView path={'/' + rest.filter(s => s !== '').join('/')} />; break
    case 'inspect': view = <InspectView cid={rest.join('/')} />; break
    case 'peers': view = <PeersView />; break
    case 'pins': view = <PinsView />; break
    case 'keys': view = <KeysView />; break
    case 'settings': view = <SettingsView />; break
    default: view = <StatusView />
  }
  const current = route === 'inspect' ? 'files' : route
  return (
    <>
      <a class='skip' href='#main' onClick={(e) => { e.preventDefault(); main.current?.focus() }}>Skip to content</a>
      <header class='top'>
        <a class='brand' href='#/status' aria-label='tsipfs home'>
          <svg viewBox='0 0 32 32' width='26' height='26' aria-hidden='true'><path fill='currentColor' d='M16 2 28 9v14L16 30 4 23V9z' /><path fill='var(--bg)' d='M16 8 22 11.5v7L16 22l-6-3.5v-7z' /></svg>
          <span>tsipfs</span>
        </a>
        <nav aria-label='Main'>
          <ul>
            {NAV.map(([k, label]) => (
              <li key={k}><a href={`#/${k}`} aria-current={current === k ? 'page' : undefined}>{label}</a></li>
            ))}
          </ul>
        </nav>
        <div class='top-tools'>
          <button type='button' class='ghost small' onClick={() => { void signIn() }} title='Enter an API.Authorizations secret'>
            {hasSecret() ? 'Signed in' : 'Sign in'}
          </button>
          <button type='button' class='ghost small' onClick={nextTheme} aria-label={`Theme: ${theme}. Switch theme`} title='Switch theme (auto, dark, light)'>
            {theme === 'dark' ? '☾ Dark' : theme === 'light' ? '☀ Light' : '◐ Auto'}
          </button>
        </div>
      </header>
      <main id='main' ref={main} tabIndex={-1}>{view}</main>
      <DialogHost />
      <Toasts />
    </>
  )
}

render(<App />, document.getElementById('app') as HTMLElement)
