// tsipfs's own web UI on the API port. `/webui` redirects to `/webui/` (307, as Kubo does), which serves
// the front end built from webui/ into dist/webui by `npm install` (prepare). Hashed assets under
// /webui/assets/ are immutable; index.html is revalidated. Everything else goes to the RPC app.
import type http from 'node:http'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import type { ConfigStore, KuboConfig } from '../core/config/index.js'

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void

/** dist/webui, next to dist/server where this module runs from. */
export const WEBUI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'webui')

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2'
}
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt'])
const CORS_KEYS = new Set(['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-credentials'])

interface Entry { mtimeMs: number, body: Buffer, gz?: Buffer, etag: string, type: string }

export interface WebuiInit {
  config: ConfigStore
  /** the built front end (default dist/webui) */
  dir?: string
}

/** Origins the gateway listens on, from Addresses.Gateway, for the page's Content-Security-Policy. */
export function gatewayOrigins (cfg: KuboConfig, host: string): string[] {
  const raw = (cfg.Addresses as Record<string, unknown> | undefined)?.Gateway
  const list = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' && raw !== '' ? [raw] : []
  const out: string[] = []
  for (const ma of list) {
    const p = ma.split('/').filter(s => s !== '')
    if (p[2] !== 'tcp') continue
    let h = p[0] === 'ip6' ? `[${p[1]}]` : p[1]
    if (h === '0.0.0.0' || h === '[::]') h = host
    out.push(`http://${h}:${p[3] === '0' ? '*' : p[3]}`)
  }
  return out
}

/** Wrap the RPC app's handler so that /webui and /webui/... serve the web UI. */
export function withWebui (rpc: Handler, { config, dir = WEBUI_DIR }: WebuiInit): Handler {
  const cache = new Map<string, Entry>()
  const load = (file: string): Entry | undefined => {
    let st
    try { st = statSync(file) } catch { return undefined }
    if (!st.isFile()) return undefined
    const hit = cache.get(file)
    if (hit?.mtimeMs === st.mtimeMs) return hit
    const body = readFileSync(file)
    const ext = path.extname(file)
    const entry: Entry = {
      mtimeMs: st.mtimeMs,
      body,
      gz: COMPRESSIBLE.has(ext) && body.length > 512 ? gzipSync(body, { level: 9 }) : undefined,
      etag: '"' + createHash('sha256').update(body).digest('base64url').slice(0, 27) + '"',
      type: TYPES[ext] ?? 'application/octet-stream'
    }
    cache.set(file, entry)
    return entry
  }

  return (req, res) => {
    const url = req.url ?? '/'
    const q = url.indexOf('?')
    const p = q < 0 ? url : url.slice(0, q)
    if (p !== '/webui' && !p.startsWith('/webui/')) { rpc(req, res); return }
    const send = (status: number, text: string, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', ...headers })
      res.end(req.method === 'HEAD' ? undefined : text + '\n')
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') { send(405, '405 - Method Not Allowed', { Allow: 'GET, HEAD' }); return }
    if (p === '/webui') { send(307, '', { Location: '/webui/' + (q < 0 ? '' : url.slice(q)) }); return }
    let rel: string
    try { rel = decodeURIComponent(p.slice('/webui/'.length)) } catch { send(400, 'bad path'); return }
    if (rel === '') rel = 'index.html'
    if (rel.split('/').some(s => s === '..' || s === '.' || s === '') || rel.includes('\0')) { send(404, '404 page not found'); return }
    if (!existsSync(path.join(dir, 'index.html'))) {
      send(404, 'tsipfs web UI is not built: run `npm install` (or `npm run build:webui`) in the tsipfs checkout')
      return
    }
    const entry = load(path.join(dir, rel))
    if (entry == null) { send(404, '404 page not found'); return }

    const cfg = config.get()
    const headers: Record<string, string | string[]> = {}
    const api = (cfg.API ?? {}) as { HTTPHeaders?: Record<string, unknown> | null }
    for (const [k, v] of Object.entries(api.HTTPHeaders ?? {})) {
      if (!CORS_KEYS.has(k.toLowerCase())) headers[k] = Array.isArray(v) ? v.map(String) : [String(v)]
    }
    const hostName = (req.headers.host ?? '127.0.0.1').replace(/:\d+$/, '')
    const gw = gatewayOrigins(cfg, hostName).join(' ')
    headers['Content-Type'] = entry.type
    headers['X-Content-Type-Options'] = 'nosniff'
    headers['X-Frame-Options'] = 'DENY'
    headers['Referrer-Policy'] = 'same-origin'
    headers['Content-Security-Policy'] = `default-src 'self'; img-src 'self' data: blob: ${gw}; media-src 'self' blob: ${gw}; connect-src 'self' ${gw}; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`
    headers['Cache-Control'] = rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache'
    headers.ETag = entry.etag
    headers.Vary = 'Accept-Encoding'
    if (req.headers['if-none-match'] === entry.etag) { res.writeHead(304, headers); res.end(); return }
    const gzip = entry.gz != null && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))
    const body = gzip ? entry.gz as Buffer : entry.body
    if (gzip) headers['Content-Encoding'] = 'gzip'
    headers['Content-Length'] = String(body.length)
    res.writeHead(200, headers)
    res.end(req.method === 'HEAD' ? undefined : body)
  }
}
