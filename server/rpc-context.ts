// The request context the RPC handler (app.ts) and its response helpers (respond.ts) use: the part of
// Koa's Context they touch. `DirectContext` implements it over node's req/res with Koa 3's semantics for
// those members (body setter: status, Content-Type and Content-Length; respond(); onerror()), so that a
// POST under /api/v0/ is answered without Koa's per-request context, middleware chain and on-finished
// listeners, with the same status, headers (same order) and body as through Koa.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import { Stream, type Readable } from 'node:stream'

export interface RpcContext {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly method: string
  readonly path: string
  readonly querystring: string
  status: number
  body: unknown
  respond?: boolean
  get (field: string): string
  set (field: string, val: string | string[]): void
  remove (field: string): void
}

const EMPTY_STATUS = new Set([204, 205, 304])
const TEXT = 'text/plain; charset=utf-8'
const HTML = 'text/html; charset=utf-8'
const BIN = 'application/octet-stream'

/** parseurl's fast path takes these to url.parse, whose answer may differ from a plain split */
const URL_SPECIAL = /[\t\n\f\r #\u00a0\ufeff]/

/** Whether a request can be answered through a DirectContext: a POST for a plain /api/v0/ URL. */
export function directRpc (req: IncomingMessage): boolean {
  const url = req.url
  return req.method === 'POST' && url != null && url.startsWith('/api/v0/') && !URL_SPECIAL.test(url)
}

export class DirectContext implements RpcContext {
  respond?: boolean
  readonly path: string
  readonly querystring: string
  private _body: unknown = undefined
  private explicitStatus = false
  private explicitNullBody = false

  constructor (readonly req: IncomingMessage, readonly res: ServerResponse, private readonly emitError: (err: Error) => void) {
    const url = req.url ?? '/'
    const q = url.indexOf('?')
    this.path = q < 0 ? url : url.slice(0, q)
    this.querystring = q < 0 ? '' : url.slice(q + 1)
  }

  get method (): string { return this.req.method ?? '' }

  get status (): number { return this.res.statusCode }
  set status (code: number) {
    if (this.res.headersSent) return
    this.explicitStatus = true
    this.res.statusCode = code
    if (this.req.httpVersionMajor < 2) this.res.statusMessage = STATUS_CODES[code] ?? ''
    if (this._body != null && this._body !== '' && EMPTY_STATUS.has(code)) this.body = null
  }

  get body (): unknown { return this._body }
  set body (val: unknown) {
    const original = this._body
    this._body = val
    const cleanup = (): void => {
      if (original instanceof Stream) {
        original.once('error', () => {})
        if (!(val instanceof Stream)) (original as Readable).destroy()
      }
    }
    if (val == null) {
      if (!EMPTY_STATUS.has(this.res.statusCode)) {
        if (this.type() === 'application/json') { this._body = 'null'; return }
        this.status = 204
      }
      if (val === null) this.explicitNullBody = true
      this.remove('Content-Type')
      this.remove('Content-Length')
      this.remove('Transfer-Encoding')
      cleanup()
      return
    }
    if (!this.explicitStatus) this.status = 200
    const setType = !this.res.hasHeader('Content-Type')
    if (typeof val === 'string') {
      if (setType) this.set('Content-Type', /^\s*</.test(val) ? HTML : TEXT)
      this.length(Buffer.byteLength(val))
      cleanup()
      return
    }
    if (Buffer.isBuffer(val)) {
      if (setType) this.set('Content-Type', BIN)
      this.length(val.length)
      cleanup()
      return
    }
    if (val instanceof Stream) {
      // Koa destroys a body stream once the response is done (on-finished)
      this.res.once('close', () => { (val as Readable).destroy() })
      if (original !== val) {
        if (original != null) this.remove('Content-Length')
        cleanup()
      }
      if (setType) this.set('Content-Type', BIN)
      return
    }
    throw new TypeError('unsupported RPC response body')
  }

  get (field: string): string {
    const headers = this.req.headers
    const name = field.toLowerCase()
    if (name === 'referer' || name === 'referrer') return (headers.referrer as string | undefined) ?? headers.referer ?? ''
    const v = headers[name]
    return (v === undefined || v === '' ? '' : v) as string
  }

  set (field: string, val: string | string[]): void {
    if (this.res.headersSent || field === '') return
    if (Array.isArray(val)) {
      const l = field.toLowerCase()
      if (l === 'content-type' || l === 'content-length') {
        if (val.length !== 1) throw new Error(`${field} must contain exactly one value`)
        val = val[0]
      }
    }
    this.res.setHeader(field, val)
  }

  remove (field: string): void {
    if (this.res.headersSent) return
    this.res.removeHeader(field)
  }

  private type (): string {
    const t = this.res.getHeader('Content-Type')
    return typeof t === 'string' ? t.split(';')[0] : ''
  }

  private length (n: number): void {
    if (!this.res.headersSent && !this.res.hasHeader('Transfer-Encoding')) this.res.setHeader('Content-Length', n)
  }

  private get writable (): boolean {
    if (this.res.writableEnded) return false
    const socket = this.res.socket
    return socket == null || socket.writable
  }

  /** Koa's respond(): write what the handler left in the context (POST only: no HEAD case). */
  finish (): void {
    if (this.respond === false) return
    const res = this.res
    if (!this.writable) { res.end(); return }
    const body = this._body
    const code = res.statusCode
    if (EMPTY_STATUS.has(code)) {
      this.body = null
      res.end()
      return
    }
    if (body == null) {
      if (this.explicitNullBody) {
        this.remove('Content-Type')
        this.remove('Transfer-Encoding')
        this.length(0)
        res.end()
        return
      }
      const text = this.req.httpVersionMajor >= 2 ? String(code) : (res.statusMessage !== '' && res.statusMessage != null ? res.statusMessage : STATUS_CODES[code] ?? String(code))
      if (!res.headersSent) {
        this.set('Content-Type', TEXT)
        this.length(Buffer.byteLength(text))
      }
      res.end(text)
      return
    }
    if (Buffer.isBuffer(body) || typeof body === 'string') { res.end(body); return }
    Stream.pipeline(body as Readable, res, (err) => { if (err != null) this.onerror(err) })
  }

  /** Koa's ctx.onerror: a 500 text answer when nothing was sent yet. */
  onerror (thrown: unknown): void {
    if (thrown == null) return
    const err = (thrown instanceof Error ? thrown : new Error(`non-error thrown: ${JSON.stringify(thrown)}`)) as Error & { headers?: Record<string, string | string[]>, status?: number, statusCode?: number, expose?: boolean, headerSent?: boolean }
    const headerSent = this.res.headersSent || !this.writable
    if (headerSent) err.headerSent = true
    this.emitError(err)
    if (headerSent) return
    const res = this.res
    for (const name of res.getHeaderNames()) res.removeHeader(name)
    for (const [name, value] of Object.entries(err.headers ?? {})) {
      const l = name.toLowerCase()
      if (l !== 'content-type' && l !== 'content-length') this.set(name, value)
    }
    this.set('Content-Type', TEXT)
    let code = err.status ?? err.statusCode
    if (typeof code !== 'number' || STATUS_CODES[code] == null) code = 500
    const message = STATUS_CODES[code] as string
    const msg = err.expose === true ? err.message : message
    err.status = code
    this.status = code
    this.length(Buffer.byteLength(msg))
    res.end(msg)
  }
}

/** Run `handle` over a DirectContext as Koa's handleRequest would (404 until set, respond, onerror). */
export function serveDirect (req: IncomingMessage, res: ServerResponse, handle: (ctx: RpcContext) => Promise<void>, emitError: (err: Error) => void): Promise<void> {
  const ctx = new DirectContext(req, res, emitError)
  res.statusCode = 404
  return handle(ctx).then(() => { ctx.finish() }).catch((err: unknown) => { ctx.onerror(err) })
}
