// A node:http client for RPC tests: status, headers, body and trailers (fetch cannot read trailers).
import http from 'node:http'

export interface RpcResponse {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
  bytes: Buffer
  trailers: NodeJS.Dict<string>
  /** body parsed as one JSON value */
  json: () => any
  /** body parsed as NDJSON */
  ndjson: () => any[]
}

/** NDJSON text as values (blank lines skipped). */
export const ndjsonLines = (text: string): any[] => text.split('\n').filter(l => l.trim() !== '').map(l => JSON.parse(l))

export interface RpcRequest {
  method?: string
  headers?: Record<string, string>
  body?: string | Buffer
}

export async function rpc (base: string, pathAndQuery: string, req: RpcRequest = {}): Promise<RpcResponse> {
  const url = new URL(pathAndQuery, base)
  return await new Promise((resolve, reject) => {
    const r = http.request(url, { method: req.method ?? 'POST', headers: req.headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const bytes = Buffer.concat(chunks)
        const body = bytes.toString('utf8')
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          bytes,
          trailers: res.trailers,
          json: () => JSON.parse(body),
          ndjson: () => ndjsonLines(body)
        })
      })
      res.on('error', reject)
    })
    r.on('error', reject)
    r.end(req.body)
  })
}

/** A multipart/form-data body with one part per file, as kubo-rpc-client sends it. */
export function multipart (parts: Array<{ name?: string, filename?: string, type?: string, content: string | Buffer, headers?: Record<string, string> }>): { body: Buffer, contentType: string } {
  const boundary = '-----------------------------tsipfstest' + Math.random().toString(16).slice(2)
  const chunks: Buffer[] = []
  parts.forEach((p, i) => {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name ?? (i === 0 ? 'file' : `file-${i}`)}"`
    if (p.filename != null) head += `; filename="${p.filename}"`
    head += `\r\nContent-Type: ${p.type ?? 'application/octet-stream'}\r\n`
    for (const [k, v] of Object.entries(p.headers ?? {})) head += `${k}: ${v}\r\n`
    chunks.push(Buffer.from(head + '\r\n'), Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content), Buffer.from('\r\n'))
  })
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` }
}

/** POST a multipart body in pieces, calling onProgress with the bytes written; resolves with the response or the error. */
export async function streamPost (url: string, pathAndQuery: string, parts: Uint8Array[], onProgress: (sent: number) => void, filename = 'big.car'): Promise<{ status?: number, body?: string, error?: Error }> {
  const boundary = '----tsipfscrash' + Math.random().toString(16).slice(2)
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`)
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  return await new Promise((resolve) => {
    const req = http.request(new URL(pathAndQuery, url), { method: 'POST', headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` }, agent: false }, (res) => {
      let body = ''
      res.on('data', (c: Buffer) => { body += c.toString() })
      res.on('end', () => resolve({ status: res.statusCode, body }))
      res.on('error', (error) => resolve({ error }))
    })
    req.on('error', (error) => resolve({ error }))
    let sent = 0
    const pieces = [head, ...parts, tail]
    let i = 0
    const pump = (): void => {
      while (i < pieces.length) {
        const p = pieces[i++]
        sent += p.length
        onProgress(sent)
        if (!req.write(p)) { req.once('drain', pump); return }
      }
      req.end()
    }
    pump()
  })
}
