// The text `ipfs config profile apply` prints: elgris/jsondiff's Compare + Format of the old and new
// config (keys sorted, array items keyed "", ANSI colours from mgutz/ansi).
import type { Json } from '../../core/config/index.js'
import { byteOrder } from '../../core/config/schema.js'
import { goMarshal } from './gojson.js'

const YELLOW = '\x1b[0;33m'
const RED = '\x1b[0;31m'
const GREEN = '\x1b[0;32m'
const RESET = '\x1b[0m'
const INDENT = '    '

type Resolution = 'equals' | 'notEquals' | 'added' | 'removed' | 'diff'
interface Item { key: string, a?: Json, b?: Json, sub?: Item[], res: Resolution }

const isObject = (v: unknown): v is Record<string, Json> => v != null && typeof v === 'object' && !Array.isArray(v)

function deepEqual (a: Json, b: Json): boolean {
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]))
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a)
    return ka.length === Object.keys(b).length && ka.every(k => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
  }
  return false
}

function compare (a: Json, b: Json): { res: Resolution, sub?: Item[] } {
  if (deepEqual(a, b)) return { res: 'equals' }
  if (isObject(a) && isObject(b)) return { res: 'diff', sub: compareMaps(a, b) }
  if (Array.isArray(a) && Array.isArray(b)) return { res: 'diff', sub: compareArrays(a, b) }
  return { res: 'notEquals' }
}

function compareArrays (a: Json[], b: Json[]): Item[] {
  const out: Item[] = []
  const min = Math.min(a.length, b.length)
  for (let i = 0; i < min; i++) {
    const { res, sub } = compare(a[i], b[i])
    if (res === 'diff') out.push({ key: '', res, sub })
    else out.push({ key: '', res, a: a[i], b: b[i] })
  }
  for (let i = min; i < a.length; i++) out.push({ key: '', res: 'removed', a: a[i] })
  for (let i = min; i < b.length; i++) out.push({ key: '', res: 'added', b: b[i] })
  return out
}

function compareMaps (a: Record<string, Json>, b: Record<string, Json>): Item[] {
  const out: Item[] = []
  for (const k of Object.keys(a).sort(byteOrder)) {
    if (!Object.hasOwn(b, k)) { out.push({ key: k, res: 'removed', a: a[k] }); continue }
    const { res, sub } = compare(a[k], b[k])
    if (res === 'diff') out.push({ key: k, res, sub })
    else out.push({ key: k, res, a: a[k], b: b[k] })
  }
  for (const k of Object.keys(b).sort(byteOrder)) {
    if (!Object.hasOwn(a, k)) out.push({ key: k, res: 'added', b: b[k] })
  }
  // Go's sort.Sort by key; stable for the equal ("") keys of array items
  return out.sort((x, y) => byteOrder(x.key, y.key))
}

function writeItem (prefix: string, key: string, value: Json | undefined, notLast: boolean): string {
  return `${prefix}"${key}": ${goMarshal(value ?? null)}${notLast ? ',' : ''}`
}

function writeItems (prefix: string, items: Item[]): string {
  let out = '{'
  const last = items.length - 1
  items.forEach((item, i) => {
    out += '\n'
    const more = i < last
    switch (item.res) {
      case 'equals':
        out += writeItem(prefix, item.key, item.a, more)
        break
      case 'notEquals':
        out += YELLOW + writeItem(prefix + '<> ', item.key, item.a, more) + '\n' + writeItem(prefix + '** ', item.key, item.b, more) + RESET
        break
      case 'added':
        out += GREEN + writeItem(prefix + '<< ', item.key, item.b, more) + RESET
        break
      case 'removed':
        out += RED + writeItem(prefix + '>> ', item.key, item.a, more) + RESET
        break
      case 'diff':
        out += `${prefix}"${item.key}": ` + writeItems(prefix + INDENT, item.sub ?? []) + (more ? ',' : '')
        break
    }
  })
  return out + `\n${prefix}}`
}

/** jsondiff.Format(jsondiff.Compare(a, b)). */
export function formatJsonDiff (a: Json, b: Json): string {
  const ma = isObject(a) ? a : {}
  const mb = isObject(b) ? b : {}
  return writeItems('', compareMaps(ma, mb))
}
