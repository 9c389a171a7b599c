// Shared pieces: data hooks, formatting, dialogs (prompt/confirm), small widgets.
import type { ComponentChildren, JSX } from 'preact'
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, errorText, onAuthChange } from './api'

export interface Loaded<T> { data?: T, error?: unknown, loading: boolean, reload: () => void }

/** Run `fn` now, on reload(), when the secret changes, and every `every` ms if given. */
export function useApi<T> (fn: () => Promise<T>, deps: unknown[], every?: number): Loaded<T> {
  const [state, setState] = useState<{ data?: T, error?: unknown, loading: boolean }>({ loading: true })
  const [tick, setTick] = useState(0)
  const reload = useCallback(() => setTick(t => t + 1), [])
  useEffect(() => onAuthChange(reload), [reload])
  useEffect(() => {
    let live = true
    let timer: ReturnType<typeof setTimeout> | undefined
    const run = (): void => {
      fn().then(data => { if (live) setState({ data, loading: false }) },
        error => { if (live) setState(s => ({ data: s.data, error, loading: false })) })
        .finally(() => { if (live && every != null) timer = setTimeout(run, every) })
    }
    setState(s => ({ ...s, loading: true }))
    run()
    return () => { live = false; clearTimeout(timer) }
  }, [...deps, tick])
  return { ...state, reload }
}

export function formatBytes (n: number | undefined): string {
  if (n == null || !Number.isFinite(n)) return '–'
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB']
  let i = 0
  let v = n
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++ }
  return `${i === 0 ? Math.round(v) : v.toFixed(v < 10 ? 2 : 1)} ${units[i]}`
}

/** Decimal units, as Kubo writes sizes in config ("10GB"). */
export function formatSI (n: number | undefined): string {
  if (n == null || !Number.isFinite(n)) return '–'
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB']
  let i = 0
  let v = n
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i++ }
  return `${i === 0 ? v : Number(v.toFixed(v < 10 ? 2 : 1))} ${units[i]}`
}

/** A Go duration ("4.327547ms", "1.2s", "850µs") shortened for display; other text as it is. */
export function formatLatency (s: string | undefined): string {
  const m = /^([\d.]+)(ns|µs|us|ms|s)$/.exec(s ?? '')
  if (m == null) return s == null || s === '' ? 'n/a' : s
  const ms = Number(m[1]) * ({ ns: 1e-6, µs: 1e-3, us: 1e-3, ms: 1, s: 1000 } as Record<string, number>)[m[2]]
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : ms < 1000 ? `${ms.toFixed(ms < 10 ? 1 : 0)} ms` : `${(ms / 1000).toFixed(2)} s`
}

/** Datastore.StorageMax: "10GB", "500MB", "1TiB", a bare number (bytes). */
export function parseSize (s: unknown): number | undefined {
  if (typeof s === 'number') return s
  if (typeof s !== 'string') return undefined
  const m = /^\s*([\d.]+)\s*([kmgtp]?)(i?)b?\s*$/i.exec(s)
  if (m == null) return undefined
  const pow = ' kmgtp'.indexOf(m[2].toLowerCase() || ' ')
  return Number(m[1]) * (m[3] !== '' ? 1024 : 1000) ** pow
}

export const short = (s: string, n = 6): string => s.length > 2 * n + 3 ? `${s.slice(0, n)}…${s.slice(-n)}` : s

export function ErrorBox ({ error, what }: { error: unknown, what?: string }): JSX.Element | null {
  if (error == null) return null
  const missing = error instanceof ApiError && error.notFound
  if (error instanceof ApiError && error.denied) return <p class='note'>{what != null ? `${what}: ` : ''}the API needs a secret (API.Authorizations). Use Sign in at the top.</p>
  return (
    <p role='alert' class={missing ? 'note' : 'error'}>
      {missing ? `${what ?? 'This feature'} is not available on this node (command not found).` : `${what != null ? what + ': ' : ''}${errorText(error)}`}
    </p>
  )
}

export function Copy ({ text, label = 'Copy' }: { text: string, label?: string }): JSX.Element {
  const [done, setDone] = useState(false)
  return (
    <button type='button' class='small ghost' aria-label={`${label}: ${text}`}
      onClick={() => { void navigator.clipboard?.writeText(text).then(() => { setDone(true); setTimeout(() => setDone(false), 1200) }) }}>
      {done ? 'Copied' : label}
    </button>
  )
}

export function Section ({ title, children, actions, id }: { title: string, children: ComponentChildren, actions?: ComponentChildren, id?: string }): JSX.Element {
  return (
    <section class='card' aria-labelledby={id}>
      <header class='card-head'><h2 id={id}>{title}</h2>{actions != null && <div class='actions'>{actions}</div>}</header>
      {children}
    </section>
  )
}

// ---- dialogs: `await ask(...)`, `await confirmDialog(...)`, `showDialog(...)` from anywhere ----

export interface Field { name: string, label: string, value?: string, placeholder?: string, type?: 'text' | 'select' | 'checkbox' | 'textarea', options?: string[], required?: boolean }
interface DialogSpec { title: string, message?: ComponentChildren, fields?: Field[], ok?: string, danger?: boolean, wide?: boolean, body?: ComponentChildren, cancel?: string | null }
type Answer = Record<string, string> | null
let openDialog: ((spec: DialogSpec, done: (a: Answer) => void) => void) | undefined

export async function ask (spec: DialogSpec): Promise<Answer> {
  return await new Promise(resolve => { if (openDialog != null) openDialog(spec, resolve); else resolve(null) })
}
export async function confirmDialog (title: string, message: ComponentChildren, ok = 'OK', danger = false): Promise<boolean> {
  return (await ask({ title, message, ok, danger })) != null
}
export async function showDialog (title: string, body: ComponentChildren, wide = true): Promise<void> {
  await ask({ title, body, ok: 'Close', cancel: null, wide })
}

export function DialogHost (): JSX.Element {
  const ref = useRef<HTMLDialogElement>(null)
  const [cur, setCur] = useState<{ spec: DialogSpec, done: (a: Answer) => void } | null>(null)
  const opener = useRef<Element | null>(null)
  useEffect(() => {
    openDialog = (spec, done) => { opener.current = document.activeElement; setCur({ spec, done }) }
    return () => { openDialog = undefined }
  }, [])
  useEffect(() => { if (cur != null && ref.current != null && !ref.current.open) ref.current.showModal() }, [cur])
  const finish = (a: Answer): void => {
    cur?.done(a)
    setCur(null)
    ref.current?.close()
    const el = opener.current as HTMLElement | null
    if (el?.isConnected === true) el.focus()
  }
  const onSubmit = (e: Event): void => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    const out: Record<string, string> = {}
    for (const f of cur?.spec.fields ?? []) {
      const el = form.elements.namedItem(f.name) as HTMLInputElement | null
      out[f.name] = f.type === 'checkbox' ? String(el?.checked === true) : el?.value ?? ''
    }
    finish(out)
  }
  const spec = cur?.spec
  return (
    <dialog ref={ref} class={spec?.wide === true ? 'wide' : ''} aria-labelledby='dlg-title' onCancel={(e) => { e.preventDefault(); finish(null) }}>
      {spec != null && (
        <form method='dialog' onSubmit={onSubmit}>
          <h2 id='dlg-title'>{spec.title}</h2>
          {spec.message != null && <div class='dlg-msg'>{spec.message}</div>}
          {spec.body}
          {(spec.fields ?? []).map((f, i) => (
            <label key={f.name} class={f.type === 'checkbox' ? 'check' : 'field'}>
              {f.type === 'checkbox'
                ? <><input type='checkbox' name={f.name} checked={f.value === 'true'} /> {f.label}</>
                : <>
                  <span>{f.label}</span>
                  {f.type === 'select'
                    ? <select name={f.name} defaultValue={f.value}>{(f.options ?? []).map(o => <option key={o} value={o}>{o}</option>)}</select>
                    : f.type === 'textarea'
                      ? <textarea name={f.name} defaultValue={f.value} rows={4} />
                      : <input name={f.name} defaultValue={f.value} placeholder={f.placeholder} required={f.required !== false} autoFocus={i === 0} autoComplete='off' spellcheck={false} />}
                </>}
            </label>
          ))}
          <div class='dlg-buttons'>
            {spec.cancel !== null && <button type='button' class='ghost' onClick={() => finish(null)}>{spec.cancel ?? 'Cancel'}</button>}
            <button type='submit' class={spec.danger === true ? 'danger' : 'primary'} autoFocus={(spec.fields ?? []).length === 0}>{spec.ok ?? 'OK'}</button>
          </div>
        </form>
      )}
    </dialog>
  )
}

// ---- toasts ----
type Toast = { id: number, text: string, kind: 'ok' | 'error' }
let pushToast: ((t: Toast) => void) | undefined
let toastId = 0
export function toast (text: string, kind: 'ok' | 'error' = 'ok'): void { pushToast?.({ id: ++toastId, text, kind }) }
export function Toasts (): JSX.Element {
  const [list, setList] = useState<Toast[]>([])
  useEffect(() => {
    pushToast = t => {
      setList(l => [...l.slice(-3), t])
      setTimeout(() => setList(l => l.filter(x => x.id !== t.id)), t.kind === 'error' ? 8000 : 4000)
    }
    return () => { pushToast = undefined }
  }, [])
  return <div class='toasts' role='status' aria-live='polite'>{list.map(t => <div key={t.id} class={`toast ${t.kind}`}>{t.text}</div>)}</div>
}

/** Run an action, toast its outcome, and return whether it worked. */
export async function act (what: string, fn: () => Promise<unknown>, done?: string): Promise<boolean> {
  try {
    await fn()
    if (done != null) toast(done)
    return true
  } catch (e) {
    const missing = e instanceof ApiError && e.notFound
    toast(missing ? `${what}: not available on this node (command not found)` : `${what}: ${errorText(e)}`, 'error')
    return false
  }
}
