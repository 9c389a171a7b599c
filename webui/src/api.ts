// The RPC client: Kubo's calls only (POST /api/v0/<cmd>?arg=...), so the UI works against Kubo too.
// A secret from API.Authorizations, once the user gives one, goes in the Authorization header.

export type Params = Record<string, string | number | boolean | undefined | null | string[]>

export class ApiError extends Error {
  constructor (message: string, readonly status: number) {
    super(message)
    this.name = new.target.name
  }

  /** the daemon does not have this command (404 page not found / command not found) */
  get notFound (): boolean { return this.status === 404 }
  /** API.Authorizations refused the request */
  get denied (): boolean { return this.status === 401 || (this.status === 403 && /Access Denied|authoriz/i.test(this.message)) }
}

const KEY = 'tsipfs.auth'
let secret: string = sessionStorage.getItem(KEY) ?? localStorage.getItem(KEY) ?? ''
const listeners = new Set<() => void>()

/** config.ConvertAuthSecret: `bearer:tok`, `basic:user:pass`, `basic:<base64>`, or a bare token. */
export function authHeaderFor (s: string): string {
  if (s === '') return ''
  const colon = s.indexOf(':')
  if (colon < 0) return `Bearer ${s}`
  const type = s.slice(0, colon).toLowerCase()
  const value = s.slice(colon + 1)
  if (type === 'bearer') return `Bearer ${value}`
  if (type === 'basic') return `Basic ${value.includes(':') ? btoa(unescape(encodeURIComponent(value))) : value}`
  return `Bearer ${s}`
}

export const hasSecret = (): boolean => secret !== ''
export function setSecret (s: string, remember: boolean): void {
  secret = s
  sessionStorage.removeItem(KEY)
  localStorage.removeItem(KEY)
  if (s !== '') (remember ? localStorage : sessionStorage).setItem(KEY, s)
  for (const l of listeners) l()
}

/** Called when a request is refused for want of a valid secret (the app shows its sign-in dialog). */
export const onDenied = new Set<() => void>()
/** Called after the secret changes (views reload). */
export function onAuthChange (fn: () => void): () => void { listeners.add(fn); return () => listeners.delete(fn) }

export function apiUrl (cmd: string, params: Params = {}): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) {
    if (v == null) continue
    if (Array.isArray(v)) for (const x of v) q.append(k, x)
    else q.append(k, String(v))
  }
  const qs = q.toString()
  return `/api/v0/${cmd}${qs === '' ? '' : '?' + qs}`
}

function headers (): Record<string, string> {
  const h = authHeaderFor(secret)
  return h === '' ? {} : { Authorization: h }
}

async function fail (res: Response): Promise<never> {
  const text = await res.text()
  let message = text.trim()
  try { message = JSON.parse(text).Message ?? message } catch {}
  if (res.status === 404 && (message === '' || message === '404 page not found')) message = 'command not found'
  const err = new ApiError(message || `${res.status} ${res.statusText}`, res.status)
  if (err.denied) for (const l of onDenied) l()
  throw err
}

async function post (cmd: string, params: Params, body?: BodyInit, signal?: AbortSignal): Promise<Response> {
  const res = await fetch(apiUrl(cmd, params), { method: 'POST', headers: headers(), body, signal })
  if (!res.ok) await fail(res)
  return res
}

/** A single JSON value. */
export async function call<T = any> (cmd: string, params: Params = {}, body?: BodyInit, signal?: AbortSignal): Promise<T> {
  const res = await post(cmd, params, body, signal)
  const text = await res.text()
  return (text.trim() === '' ? undefined : JSON.parse(text)) as T
}

/** An NDJSON channel, collected (errors sent as `{"Type":"error"}` items are thrown). */
export async function stream<T = any> (cmd: string, params: Params = {}, body?: BodyInit): Promise<T[]> {
  const res = await post(cmd, params, body)
  return parseNdjson<T>(await res.text())
}

function parseNdjson<T> (text: string): T[] {
  const out: T[] = []
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    const v = JSON.parse(line)
    if (v?.Type === 'error' && typeof v.Message === 'string') throw new ApiError(v.Message, 500)
    out.push(v)
  }
  return out
}

/** Bytes (cat, get). */
export async function bytes (cmd: string, params: Params = {}): Promise<Blob> {
  return await (await post(cmd, params)).blob()
}

/** A multipart upload with upload progress (fetch cannot report it): NDJSON answer. */
export async function upload<T = any> (cmd: string, params: Params, form: FormData, onProgress: (sent: number, total: number) => void): Promise<T[]> {
  return await new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', apiUrl(cmd, params))
    for (const [k, v] of Object.entries(headers())) xhr.setRequestHeader(k, v)
    xhr.upload.onprogress = e => { if (e.lengthComputable) onProgress(e.loaded, e.total) }
    xhr.onerror = () => reject(new ApiError('network error', 0))
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try { resolve(parseNdjson<T>(xhr.responseText)) } catch (e) { reject(e) }
        return
      }
      fail(new Response(xhr.responseText, { status: xhr.status, statusText: xhr.statusText })).catch(reject)
    }
    xhr.send(form)
  })
}

/** `config <key>`'s value, or undefined when it is unset. */
export async function configValue<T = unknown> (key: string): Promise<T | undefined> {
  try {
    return (await call<{ Value: T }>('config', { arg: key })).Value
  } catch (e) {
    if (e instanceof ApiError && /not found|no such|failed to get config value/i.test(e.message)) return undefined
    throw e
  }
}

/** The gateway's base URL from `config Addresses.Gateway` (first TCP address), for previews. */
export async function gatewayUrl (): Promise<string | undefined> {
  const v = await configValue<string | string[]>('Addresses.Gateway')
  const list = Array.isArray(v) ? v : typeof v === 'string' && v !== '' ? [v] : []
  for (const ma of list) {
    const p = ma.split('/').filter(s => s !== '')
    if (p[2] !== 'tcp' || p[3] === '0') continue
    let host = p[0] === 'ip6' ? `[${p[1]}]` : p[1]
    if (host === '0.0.0.0' || host === '[::]') host = location.hostname
    return `http://${host}:${p[3]}`
  }
  return undefined
}

export const errorText = (e: unknown): string => e instanceof Error ? e.message : String(e)
