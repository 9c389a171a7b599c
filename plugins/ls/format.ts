// Go renderings used by ls: os.FileMode from UnixFS bits, time.Time as JSON, and the long
// listing's mode and mtime columns (kubo core/commands/ls.go formatMode / formatModTime).
import type { UnixfsMtime } from '../../core/resolver/index.js'

/** Go os.FileMode bits */
const MODE_DIR = 2 ** 31
const MODE_SYMLINK = 2 ** 27
const MODE_NAMED_PIPE = 2 ** 25
const MODE_SOCKET = 2 ** 24
const MODE_SETUID = 2 ** 23
const MODE_SETGID = 2 ** 22
const MODE_CHAR_DEVICE = 2 ** 21
const MODE_STICKY = 2 ** 20
const MODE_DEVICE = 2 ** 26

const has = (mode: number, bit: number): boolean => Math.floor(mode / bit) % 2 === 1

/** boxo FSNode.Mode(): 0 when no permissions are stored, else perms + setuid/setgid/sticky + type bits. */
export function goFileMode (perms: number, kind: 'dir' | 'symlink' | 'file'): number {
  const p = perms & 0xfff
  if (p === 0) return 0
  let m = p & 0o777
  if ((p & 0o4000) !== 0) m += MODE_SETUID
  if ((p & 0o2000) !== 0) m += MODE_SETGID
  if ((p & 0o1000) !== 0) m += MODE_STICKY
  if (kind === 'dir') m += MODE_DIR
  if (kind === 'symlink') m += MODE_SYMLINK
  return m
}

export const ZERO_TIME = '0001-01-01T00:00:00Z'

const pad = (n: number, w: number): string => String(n).padStart(w, '0')

/** Go time.Time MarshalJSON (RFC 3339 with nanoseconds, trailing zeros dropped), in UTC. */
export function goTimeJson (mtime: UnixfsMtime | undefined): string {
  if (mtime == null) return ZERO_TIME
  const d = new Date(mtime.secs * 1000)
  const y = d.getUTCFullYear()
  let s = `${y < 0 ? '-' + pad(-y, 4) : pad(y, 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`
  const ns = mtime.nsecs ?? 0
  if (ns > 0) s += '.' + pad(ns, 9).replace(/0+$/, '')
  return s + 'Z'
}

const perm = (mode: number, bit: number, ch: string): string => (mode & bit) !== 0 ? ch : '-'

/** Kubo formatMode: 10-character `ls -l` mode string. */
export function formatMode (mode: number): string {
  let t = '-'
  if (has(mode, MODE_DIR)) t = 'd'
  else if (has(mode, MODE_SYMLINK)) t = 'l'
  else if (has(mode, MODE_NAMED_PIPE)) t = 'p'
  else if (has(mode, MODE_SOCKET)) t = 's'
  else if (has(mode, MODE_DEVICE)) t = has(mode, MODE_CHAR_DEVICE) ? 'c' : 'b'
  const p = mode % 0o1000
  const special = (set: boolean, x: boolean, lower: string, upper: string): string => set ? (x ? lower : upper) : (x ? 'x' : '-')
  return t +
    perm(p, 0o400, 'r') + perm(p, 0o200, 'w') + special(has(mode, MODE_SETUID), (p & 0o100) !== 0, 's', 'S') +
    perm(p, 0o040, 'r') + perm(p, 0o020, 'w') + special(has(mode, MODE_SETGID), (p & 0o010) !== 0, 's', 'S') +
    perm(p, 0o004, 'r') + perm(p, 0o002, 'w') + special(has(mode, MODE_STICKY), (p & 0o001) !== 0, 't', 'T')
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** Kubo formatModTime: "-" for no time, "Jan 02 15:04" within the last six months, else "Jan 02  2006" (UTC). */
export function formatModTime (modTime: string, now = new Date()): string {
  if (modTime === ZERO_TIME || modTime === '') return '-'
  const ms = Date.parse(modTime)
  if (Number.isNaN(ms)) return '-'
  const t = new Date(ms)
  const sixMonthsAgo = new Date(now.getTime())
  sixMonthsAgo.setUTCMonth(sixMonthsAgo.getUTCMonth() - 6)
  const day = `${MONTHS[t.getUTCMonth()]} ${pad(t.getUTCDate(), 2)}`
  if (ms > sixMonthsAgo.getTime() && ms < now.getTime() + 24 * 3600 * 1000) {
    return `${day} ${pad(t.getUTCHours(), 2)}:${pad(t.getUTCMinutes(), 2)}`
  }
  return `${day}  ${pad(t.getUTCFullYear(), 4)}`
}
