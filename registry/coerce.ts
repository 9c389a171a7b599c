// Option value conversion with go-ipfs-cmds' rules and error texts.
import { RequestParseError } from '../core/errors.js'
import type { OptionSpec, OptionType, ValueOf } from './types.js'

const GO_KIND: Record<OptionType, string> = {
  bool: 'bool', int: 'int', uint: 'uint', int64: 'int64', uint64: 'uint64', float: 'float64', string: 'string', strings: 'array'
}

/** Go strconv.ParseInt/ParseUint with base 0: 0x, 0o, 0b, leading-0 octal, '_' separators. */
export function parseGoInt (text: string, unsigned: boolean, bits: 32 | 64): number | undefined {
  let s = text
  let neg = false
  if (s.startsWith('+') || s.startsWith('-')) {
    if (unsigned) return undefined
    neg = s[0] === '-'
    s = s.slice(1)
  }
  let base = 10
  let prefixed = false
  if (/^0[xX]/.test(s)) { base = 16; s = s.slice(2); prefixed = true } else if (/^0[oO]/.test(s)) { base = 8; s = s.slice(2); prefixed = true } else if (/^0[bB]/.test(s)) { base = 2; s = s.slice(2); prefixed = true } else if (s.length > 1 && s[0] === '0') { base = 8; s = s.slice(1); prefixed = true }
  if (s.includes('_')) {
    // Go allows '_' only between digits (or after a base prefix) with base 0
    if (!/^_?[0-9a-fA-F]+(_[0-9a-fA-F]+)*$/.test(s) || (s.startsWith('_') && !prefixed)) return undefined
    s = s.replace(/_/g, '')
  }
  if (s === '') return undefined
  const digits = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ }[base as 2 | 8 | 10 | 16]
  if (!digits.test(s)) return undefined
  const big = BigInt(base === 10 ? s : (base === 16 ? '0x' : base === 8 ? '0o' : '0b') + s) * (neg ? -1n : 1n)
  const max = unsigned ? (1n << BigInt(bits)) - 1n : (1n << BigInt(bits - 1)) - 1n
  const min = unsigned ? 0n : -(1n << BigInt(bits - 1))
  if (big > max || big < min) return undefined
  return Number(big)
}

function parseGoFloat (s: string): number | undefined {
  const t = s.replace(/_/g, '')
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity
  if (/^nan$/i.test(t)) return NaN
  if (/^[+-]?0x/i.test(t)) {
    const n = Number.parseInt(t, 16)
    return Number.isNaN(n) ? undefined : n
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return undefined
  return Number(t)
}

/** Convert one wire value (always text) to the option's type, or throw Kubo's 400 text. */
export function coerceValue<T extends OptionType> (spec: OptionSpec<T>, canonical: string, text: string): ValueOf[T] {
  const fail = (): never => {
    throw new RequestParseError(text === ''
      ? `could not convert empty value to type "${GO_KIND[spec.type]}" (for option "-${canonical}")`
      : `could not convert value "${text}" to type "${GO_KIND[spec.type]}" (for option "-${canonical}")`)
  }
  let out: unknown
  switch (spec.type) {
    case 'bool': {
      if (text === '') { out = true; break }
      const l = text.toLowerCase()
      if (['1', 't', 'true'].includes(l)) out = true
      else if (['0', 'f', 'false'].includes(l)) out = false
      else fail()
      break
    }
    case 'int': out = parseGoInt(text, false, 32) ?? fail(); break
    case 'uint': out = parseGoInt(text, true, 32) ?? fail(); break
    case 'int64': out = parseGoInt(text, false, 64) ?? fail(); break
    case 'uint64': out = parseGoInt(text, true, 64) ?? fail(); break
    case 'float': out = parseGoFloat(text) ?? fail(); break
    case 'string': out = text; break
    // (a delimiter splits values on the CLI only, as go-ipfs-cmds does: server/cli.ts)
    case 'strings': out = [text]; break
  }
  return out as ValueOf[T]
}

/** A resolved option: its canonical name and spec. */
export interface ResolvedOption { canonical: string, spec: OptionSpec }

/**
 * Turn raw wire values (key → every value given) into typed values keyed by canonical name.
 * Unknown keys are ignored (Kubo keeps them as strings; commands ignore them). Defaults are filled.
 */
export function coerceOptions (table: ReadonlyMap<string, ResolvedOption>, raw: Iterable<[string, string[]]>): { values: Record<string, unknown>, given: Set<string> } {
  const values: Record<string, unknown> = {}
  const given = new Set<string>()
  for (const [key, list] of raw) {
    if (key === 'arg') continue
    const opt = table.get(key)
    if (opt == null) continue
    const { canonical, spec } = opt
    if (spec.type === 'strings') {
      const prev = (values[canonical] as string[] | undefined) ?? []
      values[canonical] = [...prev, ...list.flatMap(v => coerceValue(spec, canonical, v) as string[])]
    } else {
      if (list.length > 1) {
        throw new RequestParseError(`expected key ${canonical} to have only a single value, received [${list.join(' ')}]`)
      }
      values[canonical] = coerceValue(spec, canonical, list[0] ?? '')
    }
    given.add(canonical)
  }
  fillDefaults(table, values)
  return { values, given }
}

export function fillDefaults (table: ReadonlyMap<string, ResolvedOption>, values: Record<string, unknown>): void {
  for (const { canonical, spec } of table.values()) {
    if (values[canonical] === undefined && spec.default !== undefined) {
      values[canonical] = Array.isArray(spec.default) ? [...spec.default] : spec.default
    }
  }
}

export const camel = (s: string): string => s.replace(/-([a-z0-9])/gi, (_, c: string) => c.toUpperCase())

/** camel() of the option names seen (a closed set: the registry's options), as it runs per request */
const camelNames = new Map<string, string>()
const camelOf = (k: string): string => {
  let c = camelNames.get(k)
  if (c === undefined) {
    c = camel(k)
    if (camelNames.size < 4096) camelNames.set(k, c)
  }
  return c
}

/** Canonical wire names → camelCase handler keys. */
export function camelize (values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k in values) if (Object.hasOwn(values, k)) out[camelOf(k)] = values[k]
  return out
}
