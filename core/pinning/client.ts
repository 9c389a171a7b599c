// A client of the IPFS Pinning Service API (ipfs.github.io/pinning-services-api-spec): GET/POST /pins,
// GET/POST/DELETE /pins/{requestid}, bearer token. Errors read as boxo's pinning/remote/client words them
// (Kubo shows them as they are): `reason: "…", details: "…": 401 Unauthorized`, `remote pinning service
// returned http error 500: 500 Internal Server Error`, `empty response from remote pinning service: Post "…": …`.
import http, { STATUS_CODES } from 'node:http'
import https from 'node:https'

export const PIN_STATUSES = ['queued', 'pinning', 'pinned', 'failed'] as const
export type PinStatusName = typeof PIN_STATUSES[number]

export interface RemotePin {
  cid: string
  name?: string
  origins?: string[]
  meta?: Record<string, string>
}

export interface RemotePinStatus {
  requestid: string
  status: PinStatusName
  created: string
  pin: RemotePin
  delegates: string[]
  info?: Record<string, string>
}

export interface LsFilter {
  cid?: string[]
  name?: string
  status?: readonly PinStatusName[]
  before?: string
  after?: string
  limit?: number
}

interface PinResults { count: number, results: RemotePinStatus[] }

/** boxo's defaultLimit: the batch size of a listing */
const DEFAULT_LIMIT = 10

export class PinningServiceClient {
  constructor (readonly endpoint: string, private readonly key: string) {}

  /** One GET /pins: the batch and the total count the service reports. */
  async lsBatch (filter: LsFilter, signal?: AbortSignal): Promise<PinResults> {
    // Go's url.Values.Encode: keys sorted, lists comma-joined (the spec's CSV style)
    const q: Array<[string, string]> = []
    if (filter.after != null) q.push(['after', filter.after])
    if (filter.before != null) q.push(['before', filter.before])
    if (filter.cid != null && filter.cid.length > 0) q.push(['cid', filter.cid.join(',')])
    q.push(['limit', String(filter.limit ?? DEFAULT_LIMIT)])
    if (filter.name != null && filter.name !== '') q.push(['name', filter.name])
    if (filter.status != null && filter.status.length > 0) q.push(['status', filter.status.join(',')])
    const body = await this.call('GET', `/pins?${new URLSearchParams(q).toString()}`, undefined, signal) as PinResults
    return { count: Number(body?.count ?? 0), results: Array.isArray(body?.results) ? body.results : [] }
  }

  /** Every matching pin status, batch by batch (boxo Client.Ls: pages with `before` = the oldest seen). */
  async * ls (filter: LsFilter, signal?: AbortSignal): AsyncGenerator<RemotePinStatus> {
    const f = { ...filter }
    for (;;) {
      const { count, results } = await this.lsBatch(f, signal)
      yield * results
      if (count === results.length) return
      if (results.length === 0) throw new Error(`invalid pinning service response: PinResults.count=${count} but no PinResults.results`)
      f.before = results[results.length - 1].created
    }
  }

  async add (pin: RemotePin, signal?: AbortSignal): Promise<RemotePinStatus> {
    return await this.call('POST', '/pins', pinBody(pin), signal) as RemotePinStatus
  }

  async get (requestid: string, signal?: AbortSignal): Promise<RemotePinStatus> {
    return await this.call('GET', `/pins/${encodeURIComponent(requestid)}`, undefined, signal) as RemotePinStatus
  }

  async replace (requestid: string, pin: RemotePin, signal?: AbortSignal): Promise<RemotePinStatus> {
    return await this.call('POST', `/pins/${encodeURIComponent(requestid)}`, pinBody(pin), signal) as RemotePinStatus
  }

  async delete (requestid: string, signal?: AbortSignal): Promise<void> {
    await this.call('DELETE', `/pins/${encodeURIComponent(requestid)}`, undefined, signal)
  }

  private async call (method: string, path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    const url = this.endpoint + path
    let res: { status: number, text: string }
    try {
      res = await request(method, url, {
        Authorization: `Bearer ${this.key}`,
        'User-Agent': 'go-pinning-service-http-client',
        Accept: 'application/json',
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {})
      }, body !== undefined ? JSON.stringify(body) : undefined, signal)
    } catch (err) {
      if (signal?.aborted === true) throw signal.reason ?? err
      throw new Error(`empty response from remote pinning service: ${goUrlError(method, url, err)}`)
    }
    const status = `${res.status} ${STATUS_CODES[res.status] ?? ''}`.trimEnd()
    if (res.status >= 300) {
      const failure = parseJson(res.text) as { error?: { reason?: unknown, details?: unknown } } | undefined
      if (res.status >= 400 && failure?.error != null && typeof failure.error === 'object') {
        const reason = typeof failure.error.reason === 'string' ? failure.error.reason : ''
        const details = typeof failure.error.details === 'string' ? failure.error.details : ''
        throw new Error(`reason: ${JSON.stringify(reason)}, details: ${JSON.stringify(details)}: ${status}`)
      }
      throw new Error(`remote pinning service returned http error ${res.status}: ${status}`)
    }
    if (res.text === '') return undefined
    const value = parseJson(res.text)
    if (value === undefined) throw new Error(`remote pinning service returned http error ${res.status}: invalid JSON response`)
    return value
  }
}

/** One HTTP(S) request (node:http, not fetch: fetch refuses the "bad ports" a Go client reaches). */
async function request (method: string, url: string, headers: Record<string, string>, body: string | undefined, signal?: AbortSignal): Promise<{ status: number, text: string }> {
  const u = new URL(url)
  const mod = u.protocol === 'https:' ? https : http
  return await new Promise((resolve, reject) => {
    const req = mod.request(u, { method, headers: body !== undefined ? { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } : headers, signal }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }) })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

function pinBody (pin: RemotePin): Record<string, unknown> {
  const out: Record<string, unknown> = { cid: pin.cid }
  if (pin.name != null && pin.name !== '') out.name = pin.name
  if (pin.origins != null && pin.origins.length > 0) out.origins = pin.origins
  if (pin.meta != null) out.meta = pin.meta
  return out
}

function parseJson (text: string): unknown {
  try { return JSON.parse(text) } catch { return undefined }
}

/** Go's *url.Error text for a failed request: `Post "http://…/pins": dial tcp 127.0.0.1:9: connect: connection refused`. */
function goUrlError (method: string, url: string, err: unknown): string {
  const verb = method[0] + method.slice(1).toLowerCase()
  const cause = err as { code?: string, address?: string, port?: number, hostname?: string, message?: string } | undefined
  let why = cause?.message ?? (err as Error)?.message ?? String(err)
  if (cause?.code === 'ECONNREFUSED') why = `dial tcp ${hostPort(cause.address, cause.port)}: connect: connection refused`
  else if (cause?.code === 'ENOTFOUND' || cause?.code === 'EAI_AGAIN') why = `dial tcp: lookup ${cause.hostname ?? new URL(url).hostname}: no such host`
  else if (cause?.code === 'ECONNRESET') why = 'EOF'
  return `${verb} ${JSON.stringify(url)}: ${why}`
}

const hostPort = (address?: string, port?: number): string =>
  address == null ? '' : `${address.includes(':') ? `[${address}]` : address}:${port ?? ''}`
