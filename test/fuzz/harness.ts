// The hostile-input harness: a client that sends what it is given (bodies in pieces, odd headers) and
// times out instead of waiting forever, the checks every answer must pass (Kubo's error shape, no
// JavaScript internals leaking, no hang), and the health check run after each batch (the node still
// answers and `repo verify` is clean: no partial write). Targets live in targets-*.ts; the fixed-seed
// specs (test/unit/fuzz, test/http/fuzz.spec.ts) and `npm run fuzz` (scripts/fuzz.js) run them.
import http from 'node:http'
import type fc from 'fast-check'
import { ndjsonLines } from '../helpers/rpc.js'

export interface Res {
  status: number
  headers: http.IncomingHttpHeaders
  body: Buffer
  text: string
  trailers: NodeJS.Dict<string>
  /** the connection failed or was cut before the answer was whole */
  error?: string
}

export interface Req {
  method?: string
  /** request target (path and query), sent as is */
  path: string
  headers?: Record<string, string | string[]>
  /** the body, in the pieces to write */
  body?: Buffer | Buffer[]
  /** end the request after the body (default true); false leaves it open (a body that never ends) */
  end?: boolean
}

/** The server did not answer in time: a hang. */
export class Hang extends Error {}
/** An answer that breaks the rules (wrong shape, internals leaked, reset): a crash in the report. */
export class Violation extends Error {}

export const HANG_MS = Number(process.env.FUZZ_HANG_MS ?? 15_000)

/** Send one request on its own connection; resolves with whatever came back, rejects with Hang on timeout. */
export async function send (base: string, req: Req, timeoutMs = HANG_MS): Promise<Res> {
  const url = new URL(base)
  return await new Promise((resolve, reject) => {
    let settled = false
    const done = (f: () => void): void => { if (!settled) { settled = true; clearTimeout(timer); f() } }
    const r = http.request({
      host: url.hostname,
      port: url.port,
      method: req.method ?? 'POST',
      path: req.path,
      headers: req.headers,
      agent: false,
      setHost: req.headers == null || !Object.keys(req.headers).some(k => k.toLowerCase() === 'host'),
      maxHeaderSize: 1 << 20
    }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      const finish = (error?: string): void => done(() => {
        const body = Buffer.concat(chunks)
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8'), trailers: res.trailers, error })
      })
      res.on('end', () => finish())
      res.on('error', (err) => finish(err.message))
      res.on('aborted', () => finish('aborted'))
    })
    const timer = setTimeout(() => done(() => { r.destroy(); reject(new Hang(`no answer in ${timeoutMs} ms: ${req.method ?? 'POST'} ${req.path.slice(0, 200)}`)) }), timeoutMs)
    r.on('error', (err) => done(() => resolve({ status: 0, headers: {}, body: Buffer.alloc(0), text: '', trailers: {}, error: err.message })))
    const pieces = req.body == null ? [] : Buffer.isBuffer(req.body) ? [req.body] : req.body
    let i = 0
    const pump = (): void => {
      while (i < pieces.length) {
        if (!r.write(pieces[i++])) { r.once('drain', pump); return }
      }
      if (req.end !== false) r.end()
    }
    pump()
  })
}

/** Text that only JavaScript would print: a runtime error reached the client instead of Kubo's text. */
export const INTERNALS = /TypeError|RangeError|ReferenceError|SyntaxError|Cannot read propert|Cannot set propert|Cannot destructure|is not a function|is not iterable|is not defined|is not a constructor|Maximum call stack|Invalid array length|Invalid typed array length|out of memory|\bERR_[A-Z_]{4,}|\bundefined\b|\[object Object\]|at [\w.<>]+ \(file:|node:internal|Invalid character in header|Invalid value "/

export function violation (what: string, req: Req | undefined, res?: Res): Violation {
  const r = req == null ? '' : ` for ${req.method ?? 'POST'} ${req.path.slice(0, 300)}`
  const s = res == null ? '' : ` -> ${res.status}${res.error != null ? ` (${res.error})` : ''} ${res.text.slice(0, 300)}`
  return new Violation(`${what}${r}${s}`)
}

export type Outcome = 'ok' | 'client' | 'server'

/**
 * An RPC answer: 200 (with no runtime error in a stream trailer or NDJSON error row), or Kubo's error:
 * 400 with Code 1 or 500 with another code, `{"Message","Code","Type":"error"}` as JSON. Anything
 * else (a reset, another status, an HTML page, JavaScript internals in the text) is a violation.
 * `extra` lists other statuses allowed for this request (404 for unknown commands, 405, 431).
 */
export function rpcOutcome (req: Req, res: Res, extra: number[] = []): Outcome {
  if (res.error != null && res.status === 0) throw violation('no answer (connection failed)', req, res)
  if (res.status === 200) {
    if (res.error != null) throw violation('answer cut short', req, res)
    const trailer = res.trailers['x-stream-error'] ?? ''
    if (INTERNALS.test(trailer)) throw violation(`runtime error in X-Stream-Error: ${trailer}`, req, res)
    if (INTERNALS.test(res.headers['content-type'] === 'application/json' ? res.text.slice(0, 100_000) : '')) throw violation('runtime error in the output', req, res)
    return 'ok'
  }
  if (extra.includes(res.status)) return 'client'
  // the framework's own refusals (Go's http.Error, wire.md §3.7): plain text, one line
  if ([400, 403, 404, 405].includes(res.status) && res.headers['content-type'] === 'text/plain; charset=utf-8') {
    if (res.headers['x-content-type-options'] !== 'nosniff' || !res.text.endsWith('\n') || INTERNALS.test(res.text)) throw violation('a plain-text refusal not in Go\'s http.Error form', req, res)
    if (res.status === 404 && res.text !== '404 page not found\n') throw violation('404 other than "404 page not found"', req, res)
    return 'client'
  }
  if (res.status !== 400 && res.status !== 500) throw violation(`status ${res.status}`, req, res)
  if (res.headers['content-type'] !== 'application/json') throw violation(`error with Content-Type ${String(res.headers['content-type'])}`, req, res)
  let e: { Message?: unknown, Code?: unknown, Type?: unknown }
  try { e = JSON.parse(res.text) } catch { throw violation('error body is not one JSON value', req, res) }
  const keys = Object.keys(e).join(',')
  if (keys !== 'Message,Code,Type' || typeof e.Message !== 'string' || typeof e.Code !== 'number' || e.Type !== 'error') throw violation(`error body is not Kubo's {"Message","Code","Type"}: ${keys}`, req, res)
  if ((res.status === 400) !== (e.Code === 1)) throw violation(`status ${res.status} with Code ${e.Code}`, req, res)
  if (INTERNALS.test(e.Message)) throw violation('a JavaScript runtime error reached the client', req, res)
  return res.status === 400 ? 'client' : 'server'
}

/** A gateway answer: any status below 600 but not a reset, a hang or JavaScript internals in a 5xx. */
export function gatewayOutcome (req: Req, res: Res, extra: { reset?: boolean } = {}): Outcome {
  if (res.error != null && extra.reset !== true) throw violation('no answer or cut short', req, res)
  if (res.status >= 500 && INTERNALS.test(res.text)) throw violation('a JavaScript runtime error reached the client', req, res)
  if (res.status >= 500 && ![500, 501, 502, 504].includes(res.status)) throw violation(`status ${res.status}`, req, res)
  return res.status < 400 ? 'ok' : res.status < 500 ? 'client' : 'server'
}

/** What a target runs against: RPC and gateway base URLs and content put there by `seed`. */
export interface FuzzContext {
  rpc: string
  gateway: string
  /** CIDs of fixture content (see `seed`) */
  fixtures: Fixtures
}

export interface Fixtures {
  /** a small file */
  file: string
  /** a multi-block file (4 blocks of 1 KiB chunks) */
  big: string
  /** a directory with a file and a sub-directory */
  dir: string
  /** a dag-cbor node linking the file */
  cbor: string
}

export interface Target<T = any> {
  name: string
  /** what the input is (for the report) */
  about: string
  arb: fc.Arbitrary<T>
  /** send one input and check the answer; throws Violation or Hang */
  run: (ctx: FuzzContext, input: T) => Promise<Outcome>
  /** runs in `npm test` (in process); default 20 */
  runs?: number
  /** runs against the spawned daemon in `npm test` (0: not there); default 5 */
  daemonRuns?: number
  /**
   * A known defect in code another helper owns (see /work/wt/FINDINGS.md): the specs list the target as
   * pending with this reason until it is fixed; `npm run fuzz` still runs it and reports it apart.
   */
  awaiting?: string
}

export const target = <T>(t: Target<T>): Target<T> => t

/** A multipart/form-data body (CRLF) with the given parts, headers as given. */
export function multipartBody (boundary: string, parts: Array<{ headers: string[], content: Buffer }>, close = true): Buffer {
  const chunks: Buffer[] = []
  for (const p of parts) chunks.push(Buffer.from(`--${boundary}\r\n${p.headers.map(h => h + '\r\n').join('')}\r\n`), p.content, Buffer.from('\r\n'))
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return Buffer.concat(chunks)
}

/** Put the fixture content in through the RPC API. */
export async function seed (rpcBase: string): Promise<Fixtures> {
  const add = async (query: string, parts: Array<{ name: string, type: string, content: Buffer }>): Promise<any[]> => {
    const b = 'fuzzseed'
    const body = multipartBody(b, parts.map(p => ({ headers: [`Content-Disposition: form-data; name="file"; filename="${encodeURIComponent(p.name)}"`, `Content-Type: ${p.type}`], content: p.content })))
    const res = await send(rpcBase, { path: `/api/v0/add?${query}`, headers: { 'Content-Type': `multipart/form-data; boundary=${b}` }, body })
    if (res.status !== 200) throw new Error(`seed add: ${res.status} ${res.text}`)
    return ndjsonLines(res.text)
  }
  const file = (await add('', [{ name: 'hello.txt', type: 'application/octet-stream', content: Buffer.from('hello fuzz\n') }]))[0].Hash
  const big = (await add('chunker=size-1024&raw-leaves=true', [{ name: 'big', type: 'application/octet-stream', content: Buffer.alloc(4096, 'abcdefghij') }]))[0].Hash
  const dir = (await add('', [
    { name: 'd', type: 'application/x-directory', content: Buffer.alloc(0) },
    { name: 'd/a.txt', type: 'application/octet-stream', content: Buffer.from('a\n') },
    { name: 'd/sub', type: 'application/x-directory', content: Buffer.alloc(0) },
    { name: 'd/sub/index.html', type: 'application/octet-stream', content: Buffer.from('<p>hi</p>\n') }
  ])).at(-1).Hash
  const put = await send(rpcBase, {
    path: '/api/v0/dag/put?store-codec=dag-cbor&input-codec=dag-json&pin=true',
    headers: { 'Content-Type': 'multipart/form-data; boundary=x' },
    body: multipartBody('x', [{ headers: ['Content-Disposition: form-data; name="file"'], content: Buffer.from(JSON.stringify({ a: [1, 2, { '/': file }], b: { c: 'd' } })) }])
  })
  if (put.status !== 200) throw new Error(`seed dag put: ${put.status} ${put.text}`)
  return { file, big, dir, cbor: JSON.parse(put.text).Cid['/'] }
}

/** The node still answers and `repo verify` finds nothing corrupt (no partial write). */
export async function healthy (ctx: FuzzContext): Promise<void> {
  const v = await send(ctx.rpc, { path: '/api/v0/version' })
  if (v.status !== 200) throw new Violation(`the node stopped answering: version -> ${v.status} ${v.error ?? v.text}`)
  const rv = await send(ctx.rpc, { path: '/api/v0/repo/verify' }, 120_000)
  const bad = rv.status !== 200 ? [rv.text] : ndjsonLines(rv.text).filter(r => r.Msg !== '' && r.Msg !== 'verify complete, all blocks validated.').map(r => r.Msg)
  if (bad.length > 0 || (rv.trailers['x-stream-error'] ?? '') !== '') throw new Violation(`repo verify: ${bad.slice(0, 5).join('; ')} ${rv.trailers['x-stream-error'] ?? ''}`)
  const g = await send(ctx.gateway, { method: 'GET', path: `/ipfs/${ctx.fixtures.file}` })
  if (g.status !== 200 || g.text !== 'hello fuzz\n') throw new Violation(`the gateway stopped answering: ${g.status} ${g.error ?? g.text.slice(0, 200)}`)
}
