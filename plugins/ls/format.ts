// Go renderings used by ls: os.FileMode from UnixFS bits, time.Time as JSON, and the long
// listing's mode and mtime columns (kubo core/commands/ls.go formatMode / formatModTime).
import type { UnixfsMtime } from '../../core/resolver/index.js'
import { hasBit as has, MODE_CHAR_DEVICE, MODE_DEVICE, MODE_DIR, MODE_NAMED_PIPE, MODE_SETGID, MODE_SETUID, MODE_SOCKET, MODE_STICKY, MODE_SYMLINK, unixfsFileMode } from '../../core/go/filemode.js'

/** boxo FSNode.Mode(), kept under its old name for ls */
export const goFileMode = unixfsFileMode

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
