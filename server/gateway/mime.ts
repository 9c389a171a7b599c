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
