// Go's os.FileMode (io/fs): the type and special bits above the nine permission bits, and
// the conversions Kubo and boxo make between it, UnixFS modes and Unix stat modes.

export const MODE_DIR = 2 ** 31
export const MODE_APPEND = 2 ** 30
export const MODE_SYMLINK = 2 ** 27
export const MODE_DEVICE = 2 ** 26
export const MODE_NAMED_PIPE = 2 ** 25
export const MODE_SOCKET = 2 ** 24
export const MODE_SETUID = 2 ** 23
export const MODE_SETGID = 2 ** 22
export const MODE_CHAR_DEVICE = 2 ** 21
export const MODE_STICKY = 2 ** 20

/** whether a FileMode has a bit above 2^31 (plain `&` works on 32-bit signed values only) */
export const hasBit = (mode: number, bit: number): boolean => Math.floor(mode / bit) % 2 === 1

/** Unix setuid/setgid/sticky (0o7000) to FileMode bits, plus the permissions. */
export function permsToFileMode (perms: number): number {
  let m = perms & 0o777
  if ((perms & 0o4000) !== 0) m += MODE_SETUID
  if ((perms & 0o2000) !== 0) m += MODE_SETGID
  if ((perms & 0o1000) !== 0) m += MODE_STICKY
  return m
}

/** boxo FSNode.Mode(): 0 when the node stores no permissions, else perms, special and type bits. */
export function unixfsFileMode (perms: number, kind: 'dir' | 'symlink' | 'file'): number {
  const p = perms & 0xfff
  if (p === 0) return 0
  let m = permsToFileMode(p)
  if (kind === 'dir') m += MODE_DIR
  if (kind === 'symlink') m += MODE_SYMLINK
  return m
}

/** The FileMode of a Unix stat mode (type bits from S_IFMT). */
export function statFileMode (mode: number | bigint): number {
  const m = Number(mode)
  let out = permsToFileMode(m & 0o7777)
  switch (m & 0o170000) {
    case 0o040000: out += MODE_DIR; break
    case 0o120000: out += MODE_SYMLINK; break
    case 0o010000: out += MODE_NAMED_PIPE; break
    case 0o140000: out += MODE_SOCKET; break
    case 0o020000: out += MODE_DEVICE + MODE_CHAR_DEVICE; break
    case 0o060000: out += MODE_DEVICE; break
  }
  return out
}

/** Go's FileMode.String(): `drwxr-xr-x`, `Lrwxrwxrwx`, `-rw-r--r--`. */
export function fileModeString (mode: number): string {
  const letters = 'dalTLDpSugct?'
  let s = ''
  for (let i = 0; i < letters.length; i++) {
    if (hasBit(mode, 2 ** (31 - i))) s += letters[i]
  }
  if (s === '') s = '-'
  const rwx = 'rwxrwxrwx'
  for (let i = 0; i < 9; i++) s += (mode & (1 << (8 - i))) !== 0 ? rwx[i] : '-'
  return s
}
