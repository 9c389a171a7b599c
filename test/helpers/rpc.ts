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
          ndjson: () => body.split('\n').filter(l => l.trim() !== '').map(l => JSON.parse(l))
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
