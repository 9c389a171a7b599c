// Writing gateway responses: content with conditional requests and byte ranges (a port of the rules of
// Go's http.ServeContent as boxo's copy of it has them: one range per answer), redirects and error pages.
import { STATUS_CODES } from 'node:http'
import { Readable } from 'node:stream'
import type { Context } from 'koa'
import { blockBuffers } from '../../core/unixfs/buffer-pool.js'
import { drained } from '../respond.js'
import { CACHE_MAX_BODY } from './cache.js'
import type { GatewayRequest } from './context.js'
import { errorPage, html } from './html.js'
import {
  contentRange, etagMatch, etagStrongEqual, firstRangeAtZero, httpDate, parseHttpDate, parseRange,
  RangeNotSatisfiableError, RangeSyntaxError, type ByteRange
} from './http.js'

export const statusText = (status: number): string => STATUS_CODES[status] ?? ''

/** Headers that describe a body we are not sending any more. */
const CONTENT_HEADERS = ['Etag', 'Cache-Control', 'Last-Modified', 'Content-Disposition', 'Content-Range', 'Accept-Ranges', 'Content-Location', 'Content-Type', 'Content-Length']

/** An error response: an HTML page for browsers, else Go's http.Error text. */
export function sendError (ctx: Context, status: number, message: string, htmlAllowed: boolean): void {
  for (const h of CONTENT_HEADERS) ctx.remove(h)
  ctx.status = status
  if (htmlAllowed && (ctx.get('Accept') ?? '').includes('text/html')) {
    ctx.set('Content-Type', 'text/html')
    ctx.body = errorPage(status, statusText(status), message)
    return
  }
  ctx.set('Content-Type', 'text/plain; charset=utf-8')
  ctx.set('X-Content-Type-Options', 'nosniff')
  ctx.body = message + '\n'
}

/** Go's http.NotFound. */
export function sendNotFound (ctx: Context): void {
  ctx.status = 404
  ctx.set('Content-Type', 'text/plain; charset=utf-8')
  ctx.set('X-Content-Type-Options', 'nosniff')
  ctx.body = '404 page not found\n'
}

/** Go's http.Redirect (the URL is sent as given). */
export function sendRedirect (ctx: Context, status: number, location: string): void {
  ctx.status = status
  ctx.set('Location', location)
  if (ctx.method === 'GET' || ctx.method === 'HEAD') {
    ctx.set('Content-Type', 'text/html; charset=utf-8')
    const body = `<a href="${html(location)}">${statusText(status)}</a>.\n\n`
    if (ctx.method === 'GET') ctx.body = body
    else ctx.set('Content-Length', String(Buffer.byteLength(body)))
  } else {
    ctx.body = Buffer.alloc(0)
  }
}

/** 304 Not Modified with the validator the client matched (boxo write304). */
export function sendNotModified (ctx: Context, etag?: string, cacheControl?: string): void {
  if (etag != null && etag !== '') ctx.set('Etag', etag)
  if (cacheControl != null && cacheControl !== '') ctx.set('Cache-Control', cacheControl)
  for (const h of ['Content-Type', 'Content-Length', 'Content-Encoding', 'Content-Disposition']) ctx.remove(h)
  if (ctx.response.get('Etag') !== '') ctx.remove('Last-Modified')
  ctx.status = 304
}

/** Send a complete body with its length (HEAD gets the headers only). */
export function sendBody (r: GatewayRequest, status: number, body: Uint8Array | string): void {
  const ctx = r.ctx
  const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  ctx.status = status
  ctx.set('Content-Length', String(bytes.byteLength))
  if (r.method === 'GET') ctx.body = bytes
}

/**
 * Stream a body of unknown length. A failure after the headers ends the body (with `onError`'s tail, as boxo
 * writes the error text at the end of a TAR or CAR); no trailer: boxo sets X-Stream-Error without declaring it,
 * so Go sends none, and `Trailer` is an RPC header.
 */
export function sendStream (r: GatewayRequest, status: number, source: AsyncIterable<Uint8Array | string>, onError?: (err: Error) => Uint8Array | string | undefined): void {
  const ctx = r.ctx
  ctx.status = status
  if (r.method === 'HEAD') return
  ctx.body = Readable.from((async function * () {
    try {
      // the retrieval timer runs while we wait for data, not while the client reads
      const it = source[Symbol.asyncIterator]()
      for (;;) {
        r.touch()
        const next = await it.next()
        r.rest()
        if (next.done === true) break
        yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value
      }
    } catch (err) {
      const e = err as Error
      r.deps.logger.debug(`gateway: stream of ${r.path} failed: ${e.message}`)
      const tail = onError?.(e)
      if (tail != null) yield typeof tail === 'string' ? Buffer.from(tail) : tail
    }
  })(), { objectMode: false })
}

export interface Content {
  size: number
  /** Last-Modified; undefined = none */
  modtime?: Date
  /** bytes [offset, offset+length) */
  read: (offset: number, length: number) => AsyncIterable<Uint8Array>
  /**
   * the Content-Type still to decide (a placeholder is set); `range`: the one range a GET is answered
   * with, when boxo would not read it as starting at 0 (Kubo: net/http then sniffs the range body)
   */
  type?: (range: ByteRange | undefined) => Promise<string>
}

export type Preconditions = 'continue' | 'done'

/** If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since (Go's checkPreconditions). */
function checkPreconditions (r: GatewayRequest, modtime: Date | undefined): { done: boolean, range: string } {
  const ctx = r.ctx
  const etag = ctx.response.get('Etag') as string
  const secs = (d: Date): number => Math.floor(d.getTime() / 1000)
  const im = ctx.get('If-Match')
  let ifMatch: boolean | undefined
  if (im !== '') {
    ifMatch = im.trim() === '*' || im.split(',').some(t => etagStrongEqual(t.trim(), etag))
  } else {
    const ius = parseHttpDate(ctx.get('If-Unmodified-Since'))
    if (ius != null && modtime != null) ifMatch = secs(modtime) <= secs(ius)
  }
  if (ifMatch === false) {
    sendError(ctx, 412, 'Precondition Failed', false)
    return { done: true, range: '' }
  }
  const inm = ctx.get('If-None-Match')
  if (inm !== '') {
    if (etagMatch(inm, etag) || inm.trim() === '*') {
      sendNotModified(ctx)
      return { done: true, range: '' }
    }
  } else {
    const ims = parseHttpDate(ctx.get('If-Modified-Since'))
    if (ims != null && modtime != null && secs(modtime) <= secs(ims)) {
      sendNotModified(ctx)
      return { done: true, range: '' }
    }
  }
  let range = ctx.get('Range')
  const ir = ctx.get('If-Range')
  if (range !== '' && ir !== '') {
    const irDate = parseHttpDate(ir)
    const ok = ir.trim().startsWith('"') || ir.trim().startsWith('W/')
      ? etagStrongEqual(ir, etag)
      : (irDate != null && modtime != null && secs(irDate) === secs(modtime))
    if (!ok) range = ''
  }
  return { done: false, range }
}

/** Serve a body with ranges and conditional requests (Content-Type and Etag must already be set). */
export async function serveContent (r: GatewayRequest, c: Content): Promise<void> {
  const ctx = r.ctx
  if (c.modtime != null && c.modtime.getTime() > 0) ctx.set('Last-Modified', httpDate(c.modtime))
  const pre = checkPreconditions(r, c.modtime)
  if (pre.done) return

  let ranges: ByteRange[] = []
  if (pre.range !== '') {
    try {
      ranges = parseRange(pre.range, c.size)
    } catch (err) {
      if (err instanceof RangeNotSatisfiableError) {
        if (c.size !== 0) {
          sendError(ctx, 416, err.message, false)
          ctx.set('Content-Range', `bytes */${c.size}`)
          return
        }
      } else if (err instanceof RangeSyntaxError) {
        sendError(ctx, 416, err.message, false)
        return
      } else {
        throw err
      }
    }
    if (ranges.reduce((n, x) => n + x.length, 0) > c.size) ranges = []
    // boxo's copy of ServeContent serves the first satisfiable range alone (no multipart/byteranges)
    else if (ranges.length > 1) ranges = [ranges[0]]
  }

  if (c.type != null) {
    ctx.set('Content-Type', await c.type(ranges.length === 1 && r.method === 'GET' && !firstRangeAtZero(pre.range) ? ranges[0] : undefined))
  }
  ctx.set('Accept-Ranges', 'bytes')
  const contentType = ctx.response.get('Content-Type') as string
  if (contentType === '') ctx.remove('Content-Type')

  if (ranges.length === 0) {
    ctx.status = 200
    ctx.set('Content-Length', String(c.size))
    if (r.method === 'HEAD' || c.size === 0) return emptyBody(r)
    await streamBody(r, c.read(0, c.size))
    return
  }
  ctx.status = 206
  const ra = ranges[0]
  ctx.set('Content-Range', contentRange(ra, c.size))
  ctx.set('Content-Length', String(ra.length))
  if (r.method === 'HEAD') return emptyBody(r)
  await streamBody(r, c.read(ra.start, ra.length))
}

function emptyBody (r: GatewayRequest): void {
  // HEAD, or an empty GET: Koa keeps the Content-Length we set
  if (r.method === 'GET') r.ctx.body = Buffer.alloc(0)
}

/** bytes a body may queue on the socket before waiting for it to drain */
const WRITE_AHEAD = 2 * 1024 * 1024

/**
 * A body of known length. The first chunk is read before the headers go out, so a missing first block
 * is still an error status; a later failure cuts the connection (the length does not match).
 * A small body is sent as one buffer (the response cache may keep it); a bigger one is written
 * straight to the socket, chunk by chunk as read (no Readable in between, no copies), a little ahead
 * of the client; a client that goes away stops the reading.
 */
async function streamBody (r: GatewayRequest, source: AsyncIterable<Uint8Array>): Promise<void> {
  const ctx = r.ctx
  const length = Number(ctx.response.get('Content-Length'))
  const it = source[Symbol.asyncIterator]()
  const first = await it.next()
  r.rest()
  // Koa's default for a body without a type
  if (ctx.response.get('Content-Type') === '') ctx.set('Content-Type', 'application/octet-stream')
  if (length <= CACHE_MAX_BODY) {
    const parts: Uint8Array[] = []
    let size = 0
    try {
      for (let next = first; next.done !== true;) {
        parts.push(next.value)
        size += next.value.byteLength
        r.touch()
        next = await it.next()
        r.rest()
      }
    } catch (err) {
      r.deps.logger.debug(`gateway: body of ${r.path} failed: ${(err as Error).message}`)
      // as a streamed body would: the headers go out, the connection is cut
      ctx.respond = false
      ctx.res.flushHeaders()
      cut(ctx.res)
      return
    }
    if (size !== length) {
      // fewer bytes than the file claims: cut as above rather than leave the client waiting
      r.deps.logger.debug(`gateway: body of ${r.path} has ${size} bytes, not ${length}`)
      ctx.respond = false
      ctx.res.flushHeaders()
      cut(ctx.res)
      return
    }
    const body = parts.length === 1 ? parts[0] : Buffer.concat(parts, size)
    ctx.body = Buffer.from(body.buffer, body.byteOffset, body.byteLength)
    ctx.set('Content-Length', String(length))
    return
  }
  await writeBody(r, first, it, length)
}


/**
 * End a response shorter than its Content-Length: what was written goes out (Node's http corks the
 * socket until the next tick, and reads in place do not wait for one), then the connection closes.
 */
function cut (res: Context['res']): void {
  // nothing written yet (a file that claims bytes it does not have): the status line and headers
  // still go out first, as Go's server sends them when the handler returns short of Content-Length
  if (!res.headersSent && !res.destroyed) res.flushHeaders()
  const socket = res.socket
  if (socket == null || socket.destroyed) {
    res.destroy()
    return
  }
  if (!socket.writableEnded) socket.end(() => { socket.destroy() })
}

async function writeBody (r: GatewayRequest, first: IteratorResult<Uint8Array>, it: AsyncIterator<Uint8Array>, length: number): Promise<void> {
  const ctx = r.ctx
  const res = ctx.res
  ctx.respond = false
  // a retrieval timeout (the timer runs only while we wait for data) cuts the response
  const onAbort = (): void => { cut(res) }
  r.signal.addEventListener('abort', onAbort)
  let next = first
  let sent = 0
  const gone = (): boolean => res.destroyed || res.socket?.writableEnded === true
  try {
    while (next.done !== true && !gone()) {
      const chunk = next.value
      sent += chunk.byteLength
      // a recycled block buffer goes back once the socket has its bytes
      const written = blockBuffers.owns(chunk) ? (err?: Error | null) => { if (err == null) blockBuffers.release(chunk) } : undefined
      if (!res.write(chunk, written) && res.writableLength >= WRITE_AHEAD) await drained(res)
      if (gone()) break
      r.touch()
      next = await it.next()
      r.rest()
    }
  } catch (err) {
    r.rest()
    r.deps.logger.debug(`gateway: body of ${r.path} failed: ${(err as Error).message}`)
    cut(res)
    return
  } finally {
    r.signal.removeEventListener('abort', onAbort)
  }
  if (gone()) {
    if (next.done !== true) await it.return?.(undefined)?.catch(() => {})
    return
  }
  if (sent !== length) {
    r.deps.logger.debug(`gateway: body of ${r.path} has ${sent} bytes, not ${length}`)
    cut(res)
    return
  }
  res.end()
}
