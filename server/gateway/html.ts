// The gateway's generated pages: directory listings, DAG previews and error pages. Links are escaped
// as Go's html/template escapes boxo's templates, because clients (and the conformance suite) match
// them literally: paths as url.URL{Path}.String(), `?filename=` values escaped once more.
import path from 'node:path'
import { CID } from 'multiformats/cid'
import { escapePath } from './resolve.js'
import { humanBytes } from './http.js'

/** Go html/template's HTML text escaping. */
export function html (s: string): string {
  return s.replace(/[&<>"'\0]/g, c => c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&#34;' : c === "'" ? '&#39;' : '\uFFFD')
}

/** A URL path for an href attribute (escaped path, then `&` made safe for HTML). */
const hrefPath = (p: string): string => escapePath(p).replace(/&/g, '&amp;')

/** html/template's escaping of a value in a URL query or fragment (everything but [A-Za-z0-9-._~]). */
function queryEscape (s: string): string {
  let out = ''
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte)
    out += byte < 0x80 && /[A-Za-z0-9\-._~]/.test(c) ? c : '%' + byte.toString(16).padStart(2, '0')
  }
  return out
}

const STYLE = `
:root{--bg:#fff;--fg:#1b2a35;--muted:#5f7380;--line:#e4eaee;--head:#0b3a53;--accent:#0a7f8c;--row:#f6f9fa}
@media (prefers-color-scheme:dark){:root{--bg:#11181d;--fg:#dfe7ec;--muted:#8fa3ad;--line:#25323a;--head:#0b2a3b;--accent:#4ec8d4;--row:#172127}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
header.top{background:var(--head);color:#fff;padding:.6rem 1rem;display:flex;gap:1rem;align-items:center}
header.top .logo{font-weight:700;letter-spacing:.05em}
header.top nav{margin-left:auto;display:flex;gap:1rem}header.top nav a{color:#cfe9ee}
main{max-width:70rem;margin:1.5rem auto;padding:0 1rem}
.card{border:1px solid var(--line);border-radius:6px;overflow:hidden;margin-bottom:1.5rem}
.card>.title{padding:.8rem 1rem;border-bottom:1px solid var(--line);display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:baseline}
.title strong{word-break:break-all}
.cid{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85em;color:var(--muted);word-break:break-all}
.meta{margin-left:auto;color:var(--muted);white-space:nowrap}
table{width:100%;border-collapse:collapse}
td,th{padding:.35rem 1rem;border-top:1px solid var(--line);vertical-align:top;text-align:left}
th{font-weight:600;font-size:.85em;color:var(--muted)}th.size{text-align:right}
@media (max-width:40rem){td.hash,th.hash{display:none}}
tr:nth-child(even) td{background:var(--row)}
td.name{word-break:break-all;width:100%}
td.type-icon,th.type-icon{width:1.15em;padding-right:0;color:var(--muted)}td.type-icon .ipfs-_folder{color:var(--accent)}
td.hash,td.size{white-space:nowrap;color:var(--muted)}
td.hash a{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85em}
td.size{text-align:right}
.copy{cursor:pointer;border:0;background:none;color:var(--muted);padding:0 .25rem;font-size:.9em}
.empty{padding:1rem;color:var(--muted)}
.actions{padding:.6rem 1rem;border-top:1px solid var(--line);color:var(--muted);font-size:.9em}
pre{white-space:pre-wrap;word-break:break-all;margin:0}
pre.error{background:var(--row);border:1px solid var(--line);border-radius:4px;padding:.8rem 1rem;margin:1rem 0}
.dag{display:grid;grid-template-columns:max-content 1fr;gap:0 1rem;padding:.2rem 0}
.dag>div{border-top:1px solid var(--line);padding:.2rem .4rem;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em;word-break:break-all}
.section{padding:.8rem 1rem}
`.replace(/\n/g, '')

function page (title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${html(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header class="top"><span class="logo">IPFS</span><span>tsipfs gateway</span><nav><a href="https://docs.ipfs.tech/" target="_blank" rel="noopener noreferrer">Docs</a><a href="https://docs.ipfs.tech/install/" target="_blank" rel="noopener noreferrer">Install IPFS</a></nav></header>
<main id="main">
${body}
</main>
</body>
</html>
`
}

/** two overlapping sheets, drawn inline so it shows whatever fonts the browser has */
const COPY_ICON = '<svg width="12" height="12" viewBox="0 0 16 16" aria-hidden="true"><rect x="5" y="5" width="9" height="9" rx="1.5" fill="none" stroke="currentColor" stroke-width="1.5"/><path d="M11 3.5V3a1 1 0 0 0-1-1H3a1 1 0 0 0-1 1v7a1 1 0 0 0 1 1h.5" fill="none" stroke="currentColor" stroke-width="1.5"/></svg>'

const copyButton = (text: string): string =>
  `<button class="copy" title="Copy CID" onclick="navigator.clipboard.writeText('${html(text)}')">${COPY_ICON}</button>`

export interface ListingEntry { name: string, cid: CID, size: number }

/** file and folder glyphs for the type column (boxo marks each row with an icon named after the file type) */
const FILE_ICON = '<svg width="14" height="16" viewBox="0 0 14 16" aria-hidden="true"><path d="M1.5 1h7l4 4v10h-11z" fill="none" stroke="currentColor" stroke-width="1.2"/><path d="M8.5 1v4h4" fill="none" stroke="currentColor" stroke-width="1.2"/></svg>'
const FOLDER_ICON = '<svg width="16" height="14" viewBox="0 0 16 14" aria-hidden="true"><path d="M1 2.5h5l1.5 1.5H15v9H1z" fill="currentColor" fill-opacity=".25" stroke="currentColor" stroke-width="1.2"/></svg>'

/** boxo's icon class of a row: `ipfs-<extension>` (lower case), `ipfs-_blank` without one; folders `ipfs-_folder` */
export function iconClass (name: string, folder: boolean): string {
  if (folder) return 'ipfs-_folder'
  const dot = name.lastIndexOf('.')
  const ext = dot > 0 ? name.slice(dot + 1).toLowerCase() : ''
  return /^[a-z0-9]{1,10}$/.test(ext) ? `ipfs-${ext}` : 'ipfs-_blank'
}

export interface ListingData {
  /** the content path shown (/ipfs/<cid>/a or /ipns/<name>/a) */
  contentPath: string
  /** the URL path as requested (decoded), the base of entry links */
  urlPath: string
  /** '' on the path gateway, `//<host>` on subdomain and DNSLink hosts */
  gatewayURL: string
  dnslink: boolean
  cid: CID
  /** cumulative DAG size of the directory */
  size: number
  backLink: string
  entries: AsyncIterable<ListingEntry>
  /** is this entry a directory? (a local look at its block; false when unknown) */
  isDirectory?: (cid: CID) => Promise<boolean>
}

/** Breadcrumbs of a content path (boxo assets.Breadcrumbs). */
export function breadcrumbs (contentPath: string, dnslink: boolean): Array<{ name: string, path: string }> {
  const segs = contentPath.split('/').filter(s => s !== '')
  const out = segs.map((name, i) => ({ name, path: i === 0 ? '' : '/' + segs.slice(0, i + 1).join('/') }))
  if (dnslink && out.length > 1) {
    const prefix = `/ipns/${segs[1]}`
    for (const c of out) if (c.path.startsWith(prefix)) c.path = c.path.slice(prefix.length)
    out[1].path = '/'
  }
  return out
}

/** Go's path.Join of the listed URL path and an entry name. */
const joinUrl = (base: string, name: string): string => path.posix.join(base, name)

/** entries whose block is looked at to tell folders from files (the rest show as files) */
const MAX_TYPE_LOOKUPS = 2000

/** A directory listing, streamed entry by entry. */
export async function * directoryListing (d: ListingData): AsyncGenerator<string> {
  const crumbs = breadcrumbs(d.contentPath, d.dnslink)
    .map(c => '/' + (c.path !== '' ? `<a href="${d.gatewayURL}${hrefPath(c.path)}">${html(c.name)}</a>` : html(c.name)))
    .join('')
  const cid = d.cid.toString()
  const head = page(d.contentPath, `<div class="card">
<div class="title"><strong>Index of ${crumbs}</strong>
<span class="cid" translate="no">${html(cid)}${copyButton(cid)}</span>
<span class="meta" title="Cumulative size of IPFS DAG (data + metadata)">${humanBytes(d.size)}</span></div>
<table>
<tr><th class="type-icon"></th><th class="name">Name</th><th class="hash">CID</th><th class="size">Size</th></tr>
${d.backLink !== '' ? `<tr><td class="type-icon"></td><td class="name"><a href="${hrefPath(d.backLink)}">..</a></td><td class="hash"></td><td class="size"></td></tr>` : ''}`)
  const [before, after] = head.split('</main>')
  yield before
  let count = 0
  for await (const e of d.entries) {
    count++
    const hash = e.cid.toString()
    const short = hash.length <= 8 ? hash : `${hash.slice(0, 4)}\u2026${hash.slice(-4)}`
    const hashHref = d.dnslink
      ? `"https://cid.ipfs.tech/#${queryEscape(hash)}" target="_blank" rel="noreferrer noopener"`
      : `"${d.gatewayURL}/ipfs/${hrefPath(hash)}?filename=${queryEscape(escapePath(e.name))}"`
    const folder = d.isDirectory != null && count <= MAX_TYPE_LOOKUPS ? await d.isDirectory(e.cid).catch(() => false) : false
    const icon = `<td class="type-icon" title="${folder ? 'Directory' : 'File'}"><span class="${iconClass(e.name, folder)}">${folder ? FOLDER_ICON : FILE_ICON}</span></td>`
    yield `<tr>${icon}<td class="name"><a href="${hrefPath(joinUrl(d.urlPath, e.name))}">${html(e.name)}</a></td>` +
      `<td class="hash"><a class="ipfs-hash" translate="no" href=${hashHref}>${html(short)}</a>${copyButton(hash)}</td>` +
      `<td class="size" title="Cumulative size of IPFS DAG (data + metadata)">${humanBytes(e.size)}</td></tr>\n`
  }
  yield `</table>
${count === 0 ? '<div class="empty">This directory is empty.</div>\n' : ''}<div class="actions">${count} ${count === 1 ? 'entry' : 'entries'} · download as <a href="?format=tar" rel="nofollow">TAR</a> · <a href="?format=car" rel="nofollow">CAR</a></div>
</div>
</main>${after}`
}

export interface DagPreviewData {
  contentPath: string
  cid: CID
  codecName: string
  codecCode: number
  gatewayURL: string
  dnslink: boolean
  allowCodecConversion: boolean
  /** the decoded block, or undefined when it could not be decoded */
  node: unknown
}

function hexDump (b: Uint8Array): string {
  const lines: string[] = []
  for (let off = 0; off < b.length; off += 16) {
    const row = b.subarray(off, off + 16)
    const hex = [...row].map(x => x.toString(16).padStart(2, '0'))
    const left = hex.slice(0, 8).join(' ').padEnd(23)
    const right = hex.slice(8).join(' ').padEnd(23)
    const text = [...row].map(x => x >= 0x20 && x < 0x7f ? String.fromCharCode(x) : '.').join('')
    lines.push(`${off.toString(16).padStart(8, '0')}  ${left}  ${right}  |${text}|`)
  }
  return lines.join('\n')
}

function renderNode (v: unknown, d: DagPreviewData): string {
  const cid = CID.asCID(v)
  if (cid != null) {
    const s = cid.toString()
    const href = d.dnslink ? `"https://cid.ipfs.tech/#${queryEscape(s)}" target="_blank" rel="noreferrer noopener"` : `"${d.gatewayURL}/ipfs/${hrefPath(s)}/"`
    return `<a class="ipfs-hash" href=${href}>${html(s)}</a>`
  }
  if (v instanceof Uint8Array) return `<pre>${html(hexDump(v))}</pre>`
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]'
    return `<div class="dag">${v.map((x, i) => `<div>${i}</div><div>${renderNode(x, d)}</div>`).join('')}</div>`
  }
  if (v != null && typeof v === 'object') {
    const entries = Object.entries(v)
    if (entries.length === 0) return '{}'
    return `<div class="dag">${entries.map(([k, x]) => `<div>${html(k)}</div><div>${renderNode(x, d)}</div>`).join('')}</div>`
  }
  if (v === null) return 'NULL'
  if (typeof v === 'number' && !Number.isInteger(v)) return v.toFixed(6)
  return html(String(v))
}

/** A browser preview of a dag-json / dag-cbor block. */
export function dagPreview (d: DagPreviewData): string {
  const cid = d.cid.toString()
  const links = ['<li><a href="?format=raw" rel="nofollow">Raw Block</a></li>']
  if (d.codecName === 'dag-json' || d.allowCodecConversion) links.push('<li><a href="?format=dag-json" rel="nofollow">DAG-JSON</a> (<a href="https://ipld.io/specs/codecs/dag-json/spec/" target="_blank" rel="noopener noreferrer">spec</a>)</li>')
  if (d.codecName === 'dag-cbor' || d.allowCodecConversion) links.push('<li><a href="?format=dag-cbor" rel="nofollow">DAG-CBOR</a> (<a href="https://ipld.io/specs/codecs/dag-cbor/spec/" target="_blank" rel="noopener noreferrer">spec</a>)</li>')
  const preview = d.node === undefined
    ? '<div class="section">The block could not be decoded for a preview.</div>'
    : `<div class="section">${renderNode(d.node, d)}</div>`
  return page(d.contentPath, `<div class="card">
<div class="title"><strong>CID: <code translate="no">${html(cid)}</code></strong>${copyButton(cid)}
<span class="meta">Codec: <code translate="no">${html(d.codecName)} (0x${d.codecCode.toString(16)})</code></span></div>
<div class="section">You can download this block as:<ul>${links.join('')}</ul></div>
</div>
<div class="card"><div class="title"><strong><span translate="no" style="text-transform:uppercase">${html(d.codecName)}</span> Preview</strong></div>
${preview}
</div>`)
}

const EXPLANATIONS: Record<number, string> = {
  400: 'Your request is invalid. Please check the error below for more information.',
  404: "The content path you requested cannot be found. There's likely an invalid or missing DAG node.",
  406: 'This gateway is unable to return the data in the format requested by the client.',
  410: 'This gateway refuses to return the requested data.',
  412: 'This gateway is unable to return the requested data under the conditions sent by the client.',
  429: 'There are too many pending requests. Please wait some time and try again.',
  451: 'This gateway is not allowed to return the requested data due to legal reasons.',
  500: 'This gateway was unable to return the requested data due to an internal error. Please check the error below for more information.',
  501: 'This gateway does not implement what the request asks for.',
  502: 'The gateway backend was unable to fulfill your request due to an error.',
  504: 'This gateway is taking too long to fetch content from content providers. Please check the error below for more information.'
}

/** An HTML error page for browsers. */
export function errorPage (status: number, statusText: string, message: string): string {
  const explain = EXPLANATIONS[status]
  return page(`${status} ${statusText}`, `<div class="card">
<div class="title"><strong>${status} ${html(statusText)}</strong></div>
<div class="section">
${explain != null ? `<p>${html(explain)}</p>\n` : ''}<pre class="error">${html(message)}</pre>
<p>How you can proceed:</p>
<ul>
<li>Check the <a href="https://discuss.ipfs.tech/c/help/13" target="_blank" rel="noopener noreferrer">Discussion Forums</a> for similar errors.</li>
<li>Try diagnosing your request with the <a href="https://docs.ipfs.tech/reference/diagnostic-tools/" target="_blank" rel="noopener noreferrer">diagnostic tools</a>.</li>
${status === 400 || status === 404 ? '<li>Inspect the <a href="https://cid.ipfs.tech/" target="_blank" rel="noopener noreferrer">CID</a> or <a href="https://explore.ipld.io/" target="_blank" rel="noopener noreferrer">DAG</a>.</li>\n' : ''}</ul>
<p><button onclick="window.location.reload()">Retry</button></p>
</div>
</div>`)
}

/** The source of the page generators (hashed into listing Etags). */
export const TEMPLATE_SOURCE = STYLE + page.toString() + directoryListing.toString() + dagPreview.toString() + renderNode.toString()
