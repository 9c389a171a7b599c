// Content types: by file extension (Go's built-in table first, then mime-db through the mime-types
// package), else sniffed from the first bytes (signatures in the spirit of gabriel-vasile/mimetype,
// which boxo uses). Text types get "; charset=utf-8" as Go's mime.TypeByExtension adds it.
import { isUtf8 } from 'node:buffer'
import { lookup as mimeLookup } from 'mime-types'

/** Go's builtinTypesLower (mime/type.go). */
const GO_BUILTIN: Record<string, string> = {
  '.avif': 'image/avif',
  '.css': 'text/css; charset=utf-8',
  '.gif': 'image/gif',
  '.htm': 'text/html; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.jpeg': 'image/jpeg',
  '.jpg': 'image/jpeg',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.mjs': 'text/javascript; charset=utf-8',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.webp': 'image/webp',
  '.xml': 'text/xml; charset=utf-8'
}


/** The extension of a file name, with its dot, as Go's path.Ext. */
export function extname (name: string): string {
  for (let i = name.length - 1; i >= 0 && name[i] !== '/'; i--) {
    if (name[i] === '.') return name.slice(i)
  }
  return ''
}

/** Go's mime.TypeByExtension: '' when unknown. */
export function typeByExtension (ext: string): string {
  if (ext === '') return ''
  const lower = ext.toLowerCase()
  const builtin = GO_BUILTIN[lower]
  if (builtin != null) return builtin
  let type = mimeLookup(lower)
  if (type === false) return ''
  if (type.startsWith('text/') && !type.includes('charset')) type += '; charset=utf-8'
  return type
}

/** How many leading bytes sniffing looks at. */
export const SNIFF_LEN = 3072

const startsWith = (b: Uint8Array, sig: number[], offset = 0): boolean => {
  if (b.length < offset + sig.length) return false
  for (let i = 0; i < sig.length; i++) if (b[offset + i] !== sig[i]) return false
  return true
}
const latin1Bytes = new Map<string, number[]>()
const ascii = (b: Uint8Array, s: string, offset = 0): boolean => {
  let sig = latin1Bytes.get(s)
  if (sig == null) latin1Bytes.set(s, sig = [...Buffer.from(s, 'latin1')])
  return startsWith(b, sig, offset)
}

const HTML_TAGS = ['<!doctype html', '<html', '<head', '<script', '<iframe', '<h1', '<div', '<font', '<table', '<a', '<style', '<title', '<b', '<body', '<br', '<p', '<!--']

function isUtf8Text (b: Uint8Array): boolean {
  // trailing bytes may cut a multi-byte character: ignore up to 3 of them
  let end = b.length
  for (let i = 0; i < 3 && end > 0 && (b[end - 1] & 0xc0) === 0x80; i++) end--
  if (end > 0 && b[end - 1] >= 0xc0) end--
  if (!isUtf8(b.subarray(0, end))) return false
  for (let i = 0; i < end; i++) {
    const c = b[i]
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0c && c !== 0x0d && c !== 0x1b) return false
    if (c === 0x7f) return false
  }
  return true
}

/** A content type for the first bytes of a file (at most SNIFF_LEN of them; `complete` when that is all). */
export function sniff (b: Uint8Array, complete: boolean): string {
  if (b.length === 0) return 'text/plain; charset=utf-8'
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png'
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'image/jpeg'
  if (ascii(b, 'GIF87a') || ascii(b, 'GIF89a')) return 'image/gif'
  if (ascii(b, 'RIFF') && ascii(b, 'WEBP', 8)) return 'image/webp'
  if (ascii(b, 'RIFF') && ascii(b, 'WAVE', 8)) return 'audio/wav'
  if (ascii(b, 'RIFF') && ascii(b, 'AVI ', 8)) return 'video/x-msvideo'
  if (ascii(b, 'ftypavif', 4)) return 'image/avif'
  if (ascii(b, 'ftyp', 4)) return 'video/mp4'
  if (ascii(b, 'BM')) return b.length > 14 ? 'image/bmp' : 'application/octet-stream'
  if (startsWith(b, [0x00, 0x00, 0x01, 0x00])) return 'image/x-icon'
  if (ascii(b, '%PDF-')) return 'application/pdf'
  if (startsWith(b, [0x1a, 0x45, 0xdf, 0xa3])) return 'video/webm'
  if (ascii(b, 'OggS')) return 'audio/ogg'
  if (ascii(b, 'ID3') || startsWith(b, [0xff, 0xfb])) return 'audio/mpeg'
  if (ascii(b, 'fLaC')) return 'audio/flac'
  if (ascii(b, 'PK\x03\x04')) return 'application/zip'
  if (startsWith(b, [0x1f, 0x8b])) return 'application/gzip'
  if (startsWith(b, [0x28, 0xb5, 0x2f, 0xfd])) return 'application/zstd'
  if (ascii(b, '\x00asm')) return 'application/wasm'
  if (ascii(b, 'wOFF')) return 'font/woff'
  if (ascii(b, 'wOF2')) return 'font/woff2'
  if (ascii(b, 'ustar', 257)) return 'application/x-tar'
  if (!isUtf8Text(b)) return 'application/octet-stream'

  const text = Buffer.from(b).toString('utf8').replace(/^\uFEFF/, '')
  const head = text.trimStart().slice(0, 512).toLowerCase()
  if (head.startsWith('<?xml')) return head.includes('<svg') ? 'image/svg+xml' : 'text/xml; charset=utf-8'
  if (head.startsWith('<svg')) return 'image/svg+xml'
  for (const tag of HTML_TAGS) {
    if (head.startsWith(tag)) {
      const next = head.charAt(tag.length)
      if (tag === '<!--' || next === '' || next === ' ' || next === '>' || next === '\t' || next === '\n' || next === '\r') return 'text/html; charset=utf-8'
    }
  }
  const first = head.charAt(0)
  if (complete && (first === '{' || first === '[')) {
    try {
      JSON.parse(text)
      return 'application/json'
    } catch {}
  }
  return 'text/plain; charset=utf-8'
}

/** Bytes net/http's sniffing looks at. */
export const GO_SNIFF_LEN = 512

type GoSig = (b: Uint8Array, firstNonWS: number) => string

const goExact = (sig: string, ct: string): GoSig => {
  const s = [...Buffer.from(sig, 'latin1')]
  return (b) => startsWith(b, s) ? ct : ''
}

const goMasked = (mask: string, pat: string, ct: string, skipWS = false): GoSig => {
  const m = [...Buffer.from(mask, 'latin1')]
  const p = [...Buffer.from(pat, 'latin1')]
  return (b, ws) => {
    const d = skipWS ? b.subarray(ws) : b
    if (d.length < m.length) return ''
    for (let i = 0; i < m.length; i++) if ((d[i] & m[i]) !== p[i]) return ''
    return ct
  }
}

const goHtml = (tag: string): GoSig => {
  const t = [...Buffer.from(tag, 'latin1')]
  return (b, ws) => {
    const d = b.subarray(ws)
    if (d.length < t.length + 1) return ''
    for (let i = 0; i < t.length; i++) {
      const c = t[i] >= 0x41 && t[i] <= 0x5a ? d[i] & 0xdf : d[i]
      if (c !== t[i]) return ''
    }
    const next = d[t.length]
    return next === 0x20 || next === 0x3e ? 'text/html; charset=utf-8' : ''
  }
}

const goMp4: GoSig = (b) => {
  if (b.length < 12) return ''
  const box = ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0
  if (box % 4 !== 0 || b.length < box || !ascii(b, 'ftyp', 4)) return ''
  for (let st = 8; st < box; st += 4) {
    if (st !== 12 && ascii(b, 'mp4', st)) return 'video/mp4'
  }
  return ''
}

const goText: GoSig = (b, ws) => {
  for (let i = ws; i < b.length; i++) {
    const c = b[i]
    if (c <= 0x08 || c === 0x0b || (c >= 0x0e && c <= 0x1a) || (c >= 0x1c && c <= 0x1f)) return ''
  }
  return 'text/plain; charset=utf-8'
}

/** net/http's sniffSignatures (the WHATWG table Go implements), in Go's order. */
const GO_SIGS: GoSig[] = [
  ...['<!DOCTYPE HTML', '<HTML', '<HEAD', '<SCRIPT', '<IFRAME', '<H1', '<DIV', '<FONT', '<TABLE', '<A', '<STYLE', '<TITLE', '<B', '<BODY', '<BR', '<P', '<!--'].map(goHtml),
  goMasked('\xff\xff\xff\xff\xff', '<?xml', 'text/xml; charset=utf-8', true),
  goExact('%PDF-', 'application/pdf'),
  goExact('%!PS-Adobe-', 'application/postscript'),
  goMasked('\xff\xff\x00\x00', '\xfe\xff\x00\x00', 'text/plain; charset=utf-16be'),
  goMasked('\xff\xff\x00\x00', '\xff\xfe\x00\x00', 'text/plain; charset=utf-16le'),
  goMasked('\xff\xff\xff\x00', '\xef\xbb\xbf\x00', 'text/plain; charset=utf-8'),
  goExact('GIF87a', 'image/gif'),
  goExact('GIF89a', 'image/gif'),
  goExact('\x89PNG\x0d\x0a\x1a\x0a', 'image/png'),
  goExact('\xff\xd8\xff', 'image/jpeg'),
  goExact('BM', 'image/bmp'),
  goMasked('\xff\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff', 'RIFF\x00\x00\x00\x00WEBPVP', 'image/webp'),
  goExact('\x00\x00\x01\x00', 'image/vnd.microsoft.icon'),
  goMasked('\xff\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\xff', 'RIFF\x00\x00\x00\x00WAVE', 'audio/wave'),
  goMasked('\xff\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\xff', 'FORM\x00\x00\x00\x00AIFF', 'audio/aiff'),
  goMasked('\xff\xff\xff\xff', '.snd', 'audio/basic'),
  goMasked('\xff\xff\xff\xff\xff', 'OggS\x00', 'application/ogg'),
  goMasked('\xff\xff\xff\xff\xff\xff\xff\xff', 'MThd\x00\x00\x00\x06', 'audio/midi'),
  goMasked('\xff\xff\xff', 'ID3', 'audio/mpeg'),
  goMasked('\xff\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\xff', 'RIFF\x00\x00\x00\x00AVI ', 'video/avi'),
  goMasked('\x00'.repeat(34) + '\xff\xff', '\x00'.repeat(34) + 'LP', 'application/vnd.ms-fontobject'),
  goExact('\x00\x01\x00\x00', 'font/ttf'),
  goExact('OTTO', 'font/otf'),
  goExact('ttcf', 'font/collection'),
  goExact('wOFF', 'font/woff'),
  goExact('wOF2', 'font/woff2'),
  goExact('\x1a\x45\xdf\xa3', 'video/webm'),
  goExact('Rar \x1a\x07\x00', 'application/x-rar-compressed'),
  goExact('PK\x03\x04', 'application/zip'),
  goExact('\x1f\x8b\x08', 'application/x-gzip'),
  goExact('\x00asm', 'application/wasm'),
  goMp4,
  goText
]

/**
 * Go's net/http DetectContentType: what Kubo's gateway answers for a range that does not start at 0 of a
 * file typed by neither extension nor caller (boxo leaves the type unset, net/http sniffs the first bytes
 * written, i.e. the range body's).
 */
export function goSniff (data: Uint8Array): string {
  const b = data.length > GO_SNIFF_LEN ? data.subarray(0, GO_SNIFF_LEN) : data
  let ws = 0
  while (ws < b.length && (b[ws] === 0x09 || b[ws] === 0x0a || b[ws] === 0x0c || b[ws] === 0x0d || b[ws] === 0x20)) ws++
  for (const sig of GO_SIGS) {
    const ct = sig(b, ws)
    if (ct !== '') return ct
  }
  return 'application/octet-stream'
}
