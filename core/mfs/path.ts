// Go's path package (Clean, Split, Dir, Base) and Kubo's MFS path checks (core/commands/files.go).
import { goPathClean, newPathFromUri } from '../resolver/path.js'
import { RpcError } from '../errors.js'
import { goQuote } from '../go/strings.js'
import { MfsError } from './errors.js'

export { goPathClean }

/** Go path.Split: everything up to and including the last slash, and the rest. */
export function goSplit (p: string): [dir: string, file: string] {
  const i = p.lastIndexOf('/')
  return [p.slice(0, i + 1), p.slice(i + 1)]
}

/** Go path.Dir. */
export const goDir = (p: string): string => goPathClean(goSplit(p)[0])

/** Go path.Base. */
export function goBase (p: string): string {
  if (p === '') return '.'
  while (p.length > 0 && p.endsWith('/')) p = p.slice(0, -1)
  const i = p.lastIndexOf('/')
  if (i >= 0) p = p.slice(i + 1)
  return p === '' ? '/' : p
}

/** Kubo checkPath: absolute, cleaned, a trailing slash kept. */
export function checkPath (p: string): string {
  if (p.length === 0) throw new MfsError('paths must not be empty')
  if (p[0] !== '/') throw new MfsError('paths must start with a leading slash')
  let cleaned = goPathClean(p)
  if (p.endsWith('/') && p !== '/') cleaned += '/'
  return cleaned
}

/** boxo mfs DirLookup's split: slashes trimmed at both ends; [] for the root. */
export function lookupParts (p: string): string[] {
  let s = p
  while (s.startsWith('/')) s = s.slice(1)
  while (s.endsWith('/')) s = s.slice(0, -1)
  return s === '' ? [] : s.split('/')
}

/** checkContentOrMfsPath: content paths and native URIs canonicalised, the rest checked as MFS paths. */
export function checkContentOrMfsPath (arg: string): string {
  try {
    return newPathFromUri(arg).text
  } catch {
    return checkPath(arg)
  }
}

/** strconv.ParseInt(s, 8, 32) with Go's error texts. */
export function parseGoOctal32 (s: string): number {
  const m = /^([+-]?)([0-7]+)$/.exec(s)
  if (m == null) throw new RpcError(`strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`)
  const v = parseInt(m[2], 8) * (m[1] === '-' ? -1 : 1)
  if (v > 0x7fffffff || v < -0x80000000) throw new RpcError(`strconv.ParseInt: parsing ${goQuote(s)}: value out of range`)
  return v >>> 0
}

/** os.FileMode(n) → unix permission bits (files.ModePermsToUnixPerms) */
export const modePermsToUnixPerms = (m: number): number => ((m & 0xC00000) >>> 12) | ((m & 0x100000) >>> 11) | (m & 0x1FF)
