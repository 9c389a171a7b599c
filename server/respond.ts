// Writing command output the way go-ipfs-cmds does: single JSON values, NDJSON channels and byte
// streams; the first item is pulled before headers are committed so an early error is still a 500/400
// JSON body, and a late error goes into the X-Stream-Error trailer.
import { Readable } from 'node:stream'
import type { ServerResponse } from 'node:http'
import type { RpcContext as Context } from './rpc-context.js'
import { errorCode, errorMessage, ErrorCode } from '../core/errors.js'
import { blockBuffers } from '../core/unixfs/buffer-pool.js'
import type { Outcome } from '../registry/execute.js'
import type { CommandSpec, TextCall } from '../registry/types.js'

export { goJson } from './go-json.js'
import { goJson, goJsonPieces } from './go-json.js'

export const ENCODINGS = new Set(['json', 'xml', 'text', 'textnl', 'octet-stream'])

export function mimeOf (enc: string): string {
  switch (enc) {
    case 'json': return 'application/json'
    case 'xml': return 'application/xml'
    case 'octet-stream': return 'application/octet-stream'
    default: return 'text/plain'
  }
}

const PREAMBLE = 'X-Stream-Output, X-Chunked-Output, X-Content-Length'

/** Headers every command-stage response carries (cmds doPreamble). */
export function preamble (ctx: Context): void {
  ctx.set('Access-Control-Allow-Headers', PREAMBLE)
  ctx.set('Access-Control-Expose-Headers', PREAMBLE)
  ctx.set('Trailer', 'X-Stream-Error')
}

function xmlEscape (s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;')
}

/** Render one value in an encoding. */
export function encodeValue (value: unknown, enc: string, command: CommandSpec, call: TextCall): string {
  if (enc === 'json') return goJson(value)
  if (enc === 'xml') return `<Value>${xmlEscape(JSON.stringify(value))}</Value>`
  const text = command.text != null ? command.text(value as never, call as never) : goJson(value)
  return enc === 'textnl' ? text + '\n' : text
}

/** The error body before any output (cmds sendErr): 400 for Code 1, else 500. */
export function sendError (ctx: Context, err: unknown, enc: string): void {
  const code = errorCode(err)
  const message = errorMessage(err)
  ctx.status = code === ErrorCode.Client ? 400 : 500
  preamble(ctx)
  const encoding = ENCODINGS.has(enc) ? enc : 'json'
  if (encoding === 'json') {
    ctx.set('Content-Type', 'application/json')
    ctx.body = Readable.from([goJson({ Message: message, Code: code, Type: 'error' })])
  } else if (encoding === 'xml') {
    ctx.set('Content-Type', 'application/xml')
    ctx.body = Readable.from([`<Error><Message>${xmlEscape(message)}</Message><Code>${code}</Code></Error>`])
  } else {
    ctx.set('Content-Type', mimeOf(encoding))
    ctx.body = Readable.from([encoding === 'textnl' ? message + '\n' : message])
  }
}

/**
 * A complete body as one chunked response (headers, chunk and end in one write, no stream machinery),
 * chunked because the declared `Trailer` needs it.
 */
function sendChunked (ctx: Context, body: Buffer): void {
  ctx.body = body
  ctx.remove('Content-Length')
  ctx.set('Transfer-Encoding', 'chunked')
}

/**
 * The remaining values when the iterator finishes before the event loop turns (values already at
 * hand), else undefined: the caller then streams. An error here is a late error: stream it.
 */
async function drainIfDone<T> (it: AsyncIterator<T>): Promise<{ values: T[], error?: unknown } | undefined> {
  const values: T[] = []
  for (let i = 0; i < 64; i++) {
    const next = it.next()
    let timer: NodeJS.Immediate | undefined
    const turn = new Promise<'later'>(resolve => { timer = setImmediate(resolve, 'later') })
    let r: IteratorResult<T> | 'later'
    try {
      r = await Promise.race([next, turn])
    } catch (error) {
      return { values, error }
    } finally {
      // the value came first: no callback at the end of the turn
      clearImmediate(timer)
    }
    if (r === 'later') {
      pending.set(it, next as Promise<IteratorResult<unknown>>)
      unread.set(it, values)
      return undefined
    }
    if (r.done === true) return { values }
    values.push(r.value)
  }
  unread.set(it, values)
  return undefined
}

/**
 * An error as the X-Stream-Error trailer: its UTF-8 bytes, as Go writes them (Node takes a Latin-1 string), line
 * breaks and other control characters but tab as spaces (Node refuses a trailer with any: ERR_INVALID_CHAR).
 */
function trailerText (err: unknown): string {
  // eslint-disable-next-line no-control-regex
  return Buffer.from(errorMessage(err).replace(/[\r\n]+/g, ' '), 'utf8').toString('latin1').replace(/[\x00-\x08\x0a-\x1f\x7f]/g, ' ')
}

/** values pulled by drainIfDone that a stream must still send, and a pull still under way */
const unread = new WeakMap<object, unknown[]>()
const pending = new WeakMap<object, Promise<IteratorResult<unknown>>>()

/** bytes a byte stream may queue on the socket before waiting for it to drain */
const PUMP_AHEAD = 4 * 1024 * 1024

/** Resolves when the response can take more data, or is gone. */
export async function drained (res: ServerResponse): Promise<void> {
  await new Promise<void>(resolve => {
    const done = (): void => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

/** The write callback giving a recycled block buffer back once the socket has its bytes. */
function releaser (chunk: Uint8Array): ((err?: Error | null) => void) | undefined {
  if (!blockBuffers.owns(chunk)) return undefined
  return (err) => { if (err == null) blockBuffers.release(chunk) }
}

/**
 * Write a byte stream straight to the response (no Readable and pipe in between: for `cat` of a big
 * file these cost more than the copying), a few MiB ahead of the socket. A late error goes into the
 * X-Stream-Error trailer; a client that goes away stops the source. Chunks in recycled buffers
 * (core/unixfs/buffer-pool) are given back once written.
 */
async function pump (ctx: Context, first: IteratorResult<Uint8Array>, it: AsyncIterator<Uint8Array>): Promise<void> {
  const res = ctx.res
  ctx.respond = false
  let r = first
  try {
    while (r.done !== true && !res.destroyed) {
      if (!res.write(r.value, releaser(r.value)) && res.writableLength >= PUMP_AHEAD) await drained(res)
      if (res.destroyed) break
      r = await it.next()
    }
  } catch (err) {
    if (!res.destroyed) res.addTrailers({ 'X-Stream-Error': trailerText(err) })
  }
  if (res.destroyed) {
    if (r.done !== true) await it.return?.(undefined)?.catch(() => {})
    return
  }
  res.end()
}

/** encoded rows gathered into one response write at most (else at the end of the event loop turn) */
const ROWS_BATCH = 64 * 1024

/**
 * Write NDJSON rows straight to the response as they come (the values drainIfDone pulled first),
 * without a Readable in between: for `add` of 10,000 small files the stream machinery cost about as
 * much as encoding the rows. With `batch`, the rows of one event loop turn go out as one write (one
 * HTTP chunk: a write per row cost ~4 socket buffer entries, so a writev of tens of thousands of them). Same contract as withTrailer + pump: a late error goes into the
 * X-Stream-Error trailer, a slow client holds the source back, one that goes away stops it.
 */
async function pumpRows<T> (ctx: Context, first: IteratorResult<T> | undefined, it: AsyncIterator<T>, encode: (v: T) => string | Uint8Array, batch = false): Promise<void> {
  const res = ctx.res
  ctx.respond = false
  let rows = ''
  let timer: NodeJS.Immediate | undefined
  const flush = (): void => {
    if (timer != null) { clearImmediate(timer); timer = undefined }
    if (rows === '') return
    const text = rows
    rows = ''
    if (!res.destroyed) res.write(text)
  }
  const write = async (v: T): Promise<void> => {
    const e = encode(v)
    if (batch && typeof e === 'string') {
      // the timer's writes do not wait: a slow client holds the source back here
      if (res.writableLength >= PUMP_AHEAD) { flush(); await drained(res) }
      rows += e
      if (rows.length < ROWS_BATCH) { timer ??= setImmediate(flush); return }
      flush()
      if (res.writableLength >= PUMP_AHEAD) await drained(res)
      return
    }
    flush()
    if (!res.write(e) && res.writableLength >= PUMP_AHEAD) await drained(res)
  }
  let done = first?.done === true
  try {
    if (first != null && !done) await write(first.value)
    for (const v of (unread.get(it) ?? []) as T[]) {
      if (res.destroyed) break
      await write(v)
    }
    const inFlight = pending.get(it) as Promise<IteratorResult<T>> | undefined
    if (inFlight != null && !res.destroyed) {
      const r = await inFlight
      done = r.done === true
      if (!done) await write(r.value)
    }
    while (!done && !res.destroyed) {
      const r = await it.next()
      done = r.done === true
      if (!done) await write(r.value)
    }
  } catch (err) {
    done = true
    flush()
    if (!res.destroyed) res.addTrailers({ 'X-Stream-Error': trailerText(err) })
  }
  flush()
  if (res.destroyed) {
    if (!done) await Promise.resolve(it.return?.(undefined)).catch(() => {})
    return
  }
  res.end()
}

/**
 * Send an outcome. Throws (before anything is committed) when the command fails before its first item.
 */
export async function sendOutcome (ctx: Context, outcome: Outcome, enc: string, command: CommandSpec, call: TextCall): Promise<void> {
  // text of raw bytes (routing get) goes out as those bytes, as Kubo writes them
  const charset: BufferEncoding = command.textBytes === true && (enc === 'text' || enc === 'textnl') ? 'latin1' : 'utf8'
  switch (outcome.kind) {
    case 'single': {
      preamble(ctx)
      ctx.status = 200
      ctx.set('Content-Type', mimeOf(enc))
      // a big listing (ls, files ls, pin ls of millions) is encoded as it is written, as Go's encoder does
      const pieces = enc === 'json' ? goJsonPieces(outcome.value) : undefined
      if (pieces != null) {
        void pumpRows(ctx, undefined, pieces[Symbol.iterator]() as unknown as AsyncIterator<string>, (s: string) => s)
        return
      }
      sendChunked(ctx, Buffer.from(encodeValue(outcome.value, enc, command, call), charset))
      return
    }
    case 'ndjson': {
      const it = outcome.items[Symbol.asyncIterator]()
      if (command.flushHeaders === true) {
        // headers now, values as they come (pubsub sub)
        preamble(ctx)
        ctx.status = 200
        ctx.set('Content-Type', mimeOf(enc))
        ctx.set('X-Chunked-Output', '1')
        ctx.res.flushHeaders()
        // each value written as it comes (one socket write each), no Readable in between
        void pumpRows(ctx, undefined, it, (v: unknown): string | Uint8Array => charset === 'utf8' ? encodeValue(v, enc, command, call) : Buffer.from(encodeValue(v, enc, command, call), charset))
        return
      }
      const first = await it.next()
      preamble(ctx)
      ctx.status = 200
      ctx.set('Content-Type', mimeOf(enc))
      ctx.set('X-Chunked-Output', '1')
      const encode = (v: unknown): string | Buffer => charset === 'utf8' ? encodeValue(v, enc, command, call) : Buffer.from(encodeValue(v, enc, command, call), charset)
      // a stream that is already over (most commands emit a row or two) goes out in one write
      const rest = first.done === true ? { values: [] } : await drainIfDone(it)
      if (rest != null) {
        const rows = (first.done === true ? [] : [first.value, ...rest.values]).map(encode)
        sendChunked(ctx, charset === 'utf8' ? Buffer.from(rows.join('')) : Buffer.concat(rows.map(r => typeof r === 'string' ? Buffer.from(r) : r)))
        if (rest.error !== undefined) ctx.res.addTrailers({ 'X-Stream-Error': trailerText(rest.error) })
        return
      }
      // written after we return, as Koa would write a body stream (the request body is drained meanwhile)
      void pumpRows(ctx, first, it, encode, true)
      return
    }
    case 'bytes': {
      const it = outcome.body[Symbol.asyncIterator]()
      const first = await it.next()
      preamble(ctx)
      ctx.status = 200
      const fixed = outcome.contentType ?? command.contentType
      ctx.set('Content-Type', fixed ?? (enc === 'json' ? 'text/plain' : mimeOf(enc)))
      ctx.set('X-Stream-Output', '1')
      if (outcome.length != null) ctx.set('X-Content-Length', String(outcome.length))
      await pump(ctx, first, it)
    }
  }
}
