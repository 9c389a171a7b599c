// Go's path package (Clean, Split, Dir, Base) and Kubo's MFS path checks (core/commands/files.go).
import { goPathClean } from '../resolver/path.js'
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
