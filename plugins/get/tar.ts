// A streaming tar writer with Go archive/tar's choices: USTAR headers (long names split into
// prefix/name), PAX records only where USTAR cannot hold a value (long or non-ASCII paths and
// link targets, sizes of 8 GiB and more, mtimes outside USTAR), and, in PAX mode, for
// sub-second mtimes (Kubo sets PAX for `ipfs get` without --archive to keep nanoseconds).

export interface TarHeader {
  name: string
  type: 'file' | 'directory' | 'symlink'
  mode: number
  size: number
  mtime: { secs: number, nsecs: number }
  linkname?: string
}

export interface TarEntry {
  header: TarHeader
  /** file content, exactly header.size bytes */
  body?: AsyncIterable<Uint8Array>
}

const BLOCK = 512
const NAME_SIZE = 100
const PREFIX_SIZE = 155
const TYPEFLAG = { file: 0x30, directory: 0x35, symlink: 0x32 } as const
const TYPE_XHEADER = 0x78 // 'x'

const enc = new TextEncoder()
const isAscii = (s: string): boolean => /^[\x00-\x7f]*$/.test(s) // eslint-disable-line no-control-regex
const toAscii = (s: string): string => s.replace(/[^\x00-\x7f]/g, '') // eslint-disable-line no-control-regex

/** Go fitsInOctal for a field of n bytes */
const fitsInOctal = (n: number, x: number): boolean => x >= 0 && (n >= 22 || x < 8 ** (n - 1))

function putString (blk: Uint8Array, off: number, size: number, s: string): void {
  const b = enc.encode(s)
  blk.set(b.subarray(0, size), off)
}

function putOctal (blk: Uint8Array, off: number, size: number, x: number): void {
  if (!fitsInOctal(size, x)) x = 0
  putString(blk, off, size, x.toString(8).padStart(size - 1, '0'))
}

/** Go splitUSTARPath */
function splitUstarPath (name: string): [string, string] | undefined {
  let length = name.length
  if (length <= NAME_SIZE || !isAscii(name)) return undefined
  if (length > PREFIX_SIZE + 1) length = PREFIX_SIZE + 1
  else if (name[length - 1] === '/') length--
  const i = name.lastIndexOf('/', length - 1)
  const nlen = name.length - i - 1
  if (i <= 0 || nlen > NAME_SIZE || nlen === 0 || i > PREFIX_SIZE) return undefined
  return [name.slice(0, i), name.slice(i + 1)]
}

function rawHeader (fields: { name: string, prefix?: string, mode: number, size: number, mtime: number, typeflag: number, linkname?: string }): Uint8Array {
  const blk = new Uint8Array(BLOCK)
  putString(blk, 0, NAME_SIZE, fields.name)
  putOctal(blk, 100, 8, fields.mode)
  putOctal(blk, 108, 8, 0) // uid
  putOctal(blk, 116, 8, 0) // gid
  putOctal(blk, 124, 12, fields.size)
  putOctal(blk, 136, 12, fields.mtime)
  blk[156] = fields.typeflag
  putString(blk, 157, 100, fields.linkname ?? '')
  putString(blk, 257, 6, 'ustar\0')
  putString(blk, 263, 2, '00')
  putOctal(blk, 329, 8, 0) // devmajor
  putOctal(blk, 337, 8, 0) // devminor
  putString(blk, 345, PREFIX_SIZE, fields.prefix ?? '')
  // checksum: the header with the checksum field as spaces, written as 6 octal digits, NUL, space
  blk.fill(0x20, 148, 156)
  let sum = 0
  for (let i = 0; i < BLOCK; i++) sum += blk[i]
  putString(blk, 148, 7, sum.toString(8).padStart(6, '0') + '\0')
  blk[155] = 0x20
  return blk
}

/** Go formatPAXRecord */
function paxRecord (k: string, v: string): string {
  const body = ` ${k}=${v}\n`
  let size = enc.encode(body).length
  size += String(size).length
  let record = `${size}${body}`
  if (enc.encode(record).length !== size) {
    size = enc.encode(record).length
    record = `${size}${body}`
  }
  return record
}

/** Go formatPAXTime */
function paxTime (secs: number, nsecs: number): string {
  if (nsecs === 0) return String(secs)
  let sign = ''
  if (secs < 0) {
    sign = '-'
    secs = -(secs + 1)
    nsecs = -(nsecs - 1e9)
  }
  return `${sign}${secs}.${String(nsecs).padStart(9, '0')}`.replace(/0+$/, '')
}

function padding (size: number): Uint8Array | undefined {
  const rest = size % BLOCK
  return rest === 0 ? undefined : new Uint8Array(BLOCK - rest)
}

/** The header block(s) of one entry. `pax`: Kubo's non-archive transport (Format PAX). */
export function encodeHeader (h: TarHeader, pax: boolean): Uint8Array[] {
  const records: Record<string, string> = {}
  let ustar = true
  let preferPax = false
  let { secs, nsecs } = h.mtime
  if (!pax) {
    // FormatUnknown: mtime rounded to the second
    if (nsecs >= 5e8) secs += 1
    nsecs = 0
  }
  const size = h.type === 'file' ? h.size : 0
  let name = h.name
  let prefix = ''
  if (!isAscii(name) || name.length > NAME_SIZE) {
    records.path = name
    const split = splitUstarPath(name)
    if (split == null) ustar = false
    else [prefix, name] = split
  }
  const linkname = h.linkname ?? ''
  if (!isAscii(linkname) || linkname.length > NAME_SIZE) {
    records.linkpath = linkname
    ustar = false
  }
  if (!fitsInOctal(12, size)) {
    records.size = String(size)
    ustar = false
  }
  const fitsTime = fitsInOctal(12, secs)
  if (!fitsTime) ustar = false
  if (!fitsTime || nsecs !== 0) {
    preferPax = true
    records.mtime = paxTime(secs, nsecs)
  }
  const typeflag = TYPEFLAG[h.type]
  if (ustar && !(pax && preferPax)) {
    return [rawHeader({ name, prefix, mode: h.mode, size, mtime: secs, typeflag, linkname })]
  }
  // PAX: an extended header file, then the main header with what fits
  const out: Uint8Array[] = []
  const keys = Object.keys(records).sort()
  if (keys.length > 0) {
    const data = enc.encode(keys.map(k => paxRecord(k, records[k])).join(''))
    const slash = h.name.lastIndexOf('/')
    const dir = h.name.slice(0, slash + 1)
    const file = h.name.slice(slash + 1)
    let xname = toAscii(dir + 'PaxHeaders.0/' + file).slice(0, NAME_SIZE).replace(/\/+$/, '')
    if (dir === '' && file === '') xname = 'PaxHeaders.0'
    out.push(rawHeader({ name: xname, mode: 0, size: data.length, mtime: 0, typeflag: TYPE_XHEADER }))
    out.push(data)
    const pad = padding(data.length)
    if (pad != null) out.push(pad)
  }
  let mainName = toAscii(h.name)
  if (mainName.length > NAME_SIZE) {
    mainName = mainName.slice(0, NAME_SIZE)
    if (mainName.endsWith('/')) mainName = mainName.replace(/\/+$/, '')
  }
  out.push(rawHeader({ name: mainName, mode: h.mode, size: fitsInOctal(12, size) ? size : 0, mtime: fitsTime ? secs : 0, typeflag, linkname: toAscii(linkname).slice(0, NAME_SIZE) }))
  return out
}

/** The tar stream of some entries (no trailing record padding, as Go's tar.Writer). */
export async function * tarStream (entries: AsyncIterable<TarEntry>, options: { pax: boolean }): AsyncGenerator<Uint8Array> {
  for await (const { header, body } of entries) {
    yield * encodeHeader(header, options.pax)
    if (header.type !== 'file') continue
    let written = 0
    if (body != null) {
      for await (const chunk of body) {
        written += chunk.length
        if (written > header.size) throw new Error('archive/tar: write too long')
        yield chunk
      }
    }
    if (written < header.size) throw new Error(`archive/tar: missed writing ${header.size - written} bytes`)
    const pad = padding(header.size)
    if (pad != null) yield pad
  }
  yield new Uint8Array(BLOCK * 2)
}
