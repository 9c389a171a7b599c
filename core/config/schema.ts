// A JSON config checked and re-encoded the way Kubo does, over Kubo's config struct (config-type.ts):
// CheckKey (which keys `ipfs config` may set), FromMap (decoding into the struct, with Go's error texts)
// and ToMap (struct order, omitempty, custom marshallers).
import type { Json, KuboConfig } from './defaults.js'
import type { ConfigStore } from './index.js'
import { ConfigDecodeError, formatGoDuration, parseGoDuration, parseHumanBytes } from './units.js'
import { getOwn, setOwn } from '../util/own.js'
import { CONFIG_TYPE, OptStr, any, int64, slice, str, struct, type Custom, type Field, type GoType } from './config-type.js'

export { ConfigDecodeError }
export { CONFIG_TYPE, type Field, type GoType } from './config-type.js'

// ---------------------------------------------------------------- CheckKey

/** What config.ReflectToMap makes of a type's zero value, for the key check. */
type Shape = 'nil' | 'scalar' | 'slice' | { fields: Map<string, GoType> } | { sample: GoType }

/** Custom types seen through reflection (exported fields only). */
const CUSTOM_SHAPES: Partial<Record<Custom, Shape>> = {
  OptionalInteger: { fields: new Map() },
  OptionalString: { fields: new Map() },
  OptionalDuration: { fields: new Map() },
  OptionalBytes: { fields: new Map([['OptionalString', OptStr]]) },
  Duration: { fields: new Map([['Duration', int64]]) },
  Strings: 'slice',
  RawMessage: 'slice',
  AddrInfo: { fields: new Map<string, GoType>([['ID', str], ['Addrs', slice(any)]]) },
  RouterParser: { fields: new Map([['Router', struct('Router', { Type: str, Parameters: any })]]) }
}

function shapeOf (t: GoType): Shape {
  switch (t.kind) {
    case 'any': return 'nil'
    case 'slice': return 'slice'
    case 'map': return { sample: t.elem }
    case 'struct': return { fields: new Map(t.fields.map(f => [f.name, f.type])) }
    case 'ptr': return shapeOf(t.elem)
    case 'custom': return CUSTOM_SHAPES[t.name] ?? 'scalar'
    default: return 'scalar'
  }
}

/** Kubo config.CheckKey: throws `X not found` / `X key is not a map` for keys outside the struct. */
export function checkKey (key: string, root: GoType = CONFIG_TYPE): void {
  const parts = key.split('.')
  let cursor: Shape = shapeOf(root)
  for (let i = 0; i < parts.length; i++) {
    if (cursor === 'nil') return
    if (cursor === 'scalar' || cursor === 'slice') throw new Error(`${parts.slice(0, i).join('.')} key is not a map`)
    if ('sample' in cursor) {
      cursor = shapeOf(cursor.sample)
      continue
    }
    const next = cursor.fields.get(parts[i])
    if (next == null) throw new Error(`${parts.slice(0, i + 1).join('.')} not found`)
    cursor = shapeOf(next)
  }
}

// ---------------------------------------------------------------- decoding (FromMap + ToMap)

interface Ctx {
  /** the innermost struct's Go name (errorContext.Struct) */
  struct: string
  /** field names from the root (errorContext.FieldStack) */
  stack: string[]
  /** first "soft" error: Go keeps decoding and reports it at the end */
  soft?: string
}

interface Decoded { v: Json, empty: boolean }

const isObject = (v: unknown): v is { [k: string]: Json } => v != null && typeof v === 'object' && !Array.isArray(v)

function typeName (t: GoType): string {
  switch (t.kind) {
    case 'string': return 'string'
    case 'bool': return 'bool'
    case 'int': return t.name
    case 'any': return 'interface {}'
    case 'slice': return `[]${typeName(t.elem)}`
    case 'map': return `map[string]${typeName(t.elem)}`
    case 'struct': return t.name === '' ? 'struct {...}' : `config.${t.name}`
    case 'ptr': return typeName(t.elem)
    case 'custom': return t.name === 'AddrInfo' ? 'peer.AddrInfo' : `config.${t.name}`
  }
}

/** The JSON kind Go names in UnmarshalTypeError.Value. */
function jsonKind (v: Json): string {
  if (typeof v === 'string') return 'string'
  if (typeof v === 'number') return 'number'
  if (typeof v === 'boolean') return 'bool'
  if (Array.isArray(v)) return 'array'
  return 'object'
}

function typeError (ctx: Ctx, value: string, type: string): string {
  return ctx.stack.length > 0
    ? `json: cannot unmarshal ${value} into Go struct field ${ctx.struct}.${ctx.stack.join('.')} of type ${type}`
    : `json: cannot unmarshal ${value} into Go value of type ${type}`
}
function soft (ctx: Ctx, msg: string): void { ctx.soft ??= msg }
const hard = (msg: string): never => { throw new ConfigDecodeError(msg) }

/** Go's %q for a short ASCII text. */
const goQuote = (s: string): string => JSON.stringify(s)

/** Go's %T of a value decoded into `any`. */
function goTypeOf (v: Json): string {
  if (v === null) return '<nil>'
  if (typeof v === 'string') return 'string'
  if (typeof v === 'number') return 'float64'
  if (typeof v === 'boolean') return 'bool'
  if (Array.isArray(v)) return '[]interface {}'
  return 'map[string]interface {}'
}

/** Sort object keys at every level (Go marshals maps in key order). */
export function sortKeysDeep (v: Json): Json {
  if (Array.isArray(v)) return v.map(sortKeysDeep)
  if (!isObject(v)) return v
  const out: { [k: string]: Json } = {}
  for (const k of Object.keys(v).sort(byteOrder)) setOwn(out, k, sortKeysDeep(v[k]))
  return out
}
export const byteOrder = (a: string, b: string): number => a < b ? -1 : a > b ? 1 : 0

/** The zero value of a type, re-encoded. */
function zero (t: GoType): Decoded {
  switch (t.kind) {
    case 'string': return { v: '', empty: true }
    case 'bool': return { v: false, empty: true }
    case 'int': return { v: 0, empty: true }
    case 'any': case 'slice': case 'map': case 'ptr': return { v: null, empty: true }
    case 'struct': return { v: encodeStruct(t, new Map()), empty: false }
    case 'custom':
      switch (t.name) {
        case 'Flag': case 'Priority': case 'Strings': return { v: null, empty: true }
        case 'OptionalInteger': case 'OptionalString': case 'OptionalDuration': case 'OptionalBytes': return { v: null, empty: false }
        case 'Duration': return { v: '0s', empty: false }
        case 'AutoNATServiceMode': return { v: '', empty: true }
        case 'swarmLimits': case 'graphsyncEnabled': case 'experimentalAcceleratedDHTClient': return { v: false, empty: true }
        case 'AddrInfo': return { v: { Addrs: null, ID: '' }, empty: false }
        case 'RouterParser': return { v: { Type: '', Parameters: null }, empty: false }
        case 'RawMessage': return { v: null, empty: true }
      }
  }
}

function encodeStruct (t: Extract<GoType, { kind: 'struct' }>, set: Map<string, Decoded>): { [k: string]: Json } {
  const out: { [k: string]: Json } = {}
  for (const f of t.fields) {
    const d = set.get(f.name) ?? zero(f.type)
    if (f.omitempty && d.empty) continue
    out[f.name] = d.v
  }
  return out
}

/** Go's field lookup: exact name first, then a case-insensitive match. */
function findField (t: Extract<GoType, { kind: 'struct' }>, key: string): Field | undefined {
  return t.fields.find(f => f.name === key) ?? t.fields.find(f => f.name.toLowerCase() === key.toLowerCase())
}

function decode (t: GoType, v: Json, ctx: Ctx): Decoded {
  switch (t.kind) {
    case 'any':
      return { v: sortKeysDeep(v), empty: v === null }
    case 'string':
      if (v === null) return zero(t)
      if (typeof v !== 'string') { soft(ctx, typeError(ctx, jsonKind(v), 'string')); return zero(t) }
      return { v, empty: v === '' }
    case 'bool':
      if (v === null) return zero(t)
      if (typeof v !== 'boolean') { soft(ctx, typeError(ctx, jsonKind(v), 'bool')); return zero(t) }
      return { v, empty: !v }
    case 'int':
      if (v === null) return zero(t)
      if (typeof v !== 'number') { soft(ctx, typeError(ctx, jsonKind(v), t.name)); return zero(t) }
      if (!Number.isSafeInteger(v) || (t.name === 'int8' && (v < -128 || v > 127))) { soft(ctx, typeError(ctx, `number ${String(v)}`, t.name)); return zero(t) }
      return { v, empty: v === 0 }
    case 'slice': {
      if (v === null) return zero(t)
      if (!Array.isArray(v)) { soft(ctx, typeError(ctx, jsonKind(v), typeName(t))); return zero(t) }
      return { v: v.map(e => decode(t.elem, e, ctx).v), empty: v.length === 0 }
    }
    case 'map': {
      if (v === null) return zero(t)
      if (!isObject(v)) { soft(ctx, typeError(ctx, jsonKind(v), typeName(t))); return zero(t) }
      const out: { [k: string]: Json } = {}
      for (const k of Object.keys(v)) setOwn(out, k, decode(t.elem, v[k], ctx).v)
      return { v: sortKeysDeep(out), empty: Object.keys(out).length === 0 }
    }
    case 'ptr':
      if (v === null) return zero(t)
      return { v: decode(t.elem, v, ctx).v, empty: false }
    case 'struct': {
      if (v === null) return zero(t)
      if (!isObject(v)) { soft(ctx, typeError(ctx, jsonKind(v), typeName(t))); return zero(t) }
      const set = new Map<string, Decoded>()
      for (const key of Object.keys(v)) {
        const f = findField(t, key)
        if (f == null) continue
        const saved = { struct: ctx.struct, depth: ctx.stack.length }
        ctx.struct = t.name
        ctx.stack.push(f.name)
        set.set(f.name, decode(f.type, v[key], ctx))
        ctx.stack.length = saved.depth
        ctx.struct = saved.struct
      }
      return { v: encodeStruct(t, set), empty: false }
    }
    case 'custom':
      return decodeCustom(t.name, v, ctx)
  }
}

function decodeInt64 (v: Json, ctx: Ctx): number {
  if (typeof v !== 'number') return hard(typeError(ctx, jsonKind(v), 'int64'))
  if (!Number.isSafeInteger(v)) return hard(typeError(ctx, `number ${String(v)}`, 'int64'))
  return v
}

function decodeCustom (name: Custom, v: Json, ctx: Ctx): Decoded {
  switch (name) {
    case 'Flag':
      if (v === null) return { v: null, empty: true }
      if (typeof v === 'boolean') return { v, empty: false }
      return hard(`failed to unmarshal ${goQuote(JSON.stringify(v))} into a flag: must be null/undefined, true, or false`)
    case 'Priority': {
      if (v === null) return { v: null, empty: true }
      if (v === false) return { v: false, empty: false }
      if (v === true) return hard("'true' is not a valid priority")
      const n = decodeInt64(v, ctx)
      if (n <= 0) return hard(`priority must be positive: ${n} <= 0`)
      return { v: n, empty: false }
    }
    case 'OptionalInteger':
      if (v === null) return { v: null, empty: false }
      return { v: decodeInt64(v, ctx), empty: false }
    case 'OptionalString':
      if (v === null) return { v: null, empty: false }
      if (typeof v !== 'string') return hard(typeError(ctx, jsonKind(v), 'string'))
      return { v, empty: false }
    case 'OptionalDuration': {
      if (v === null || v === 'null' || v === '' || v === 'default') return { v: null, empty: false }
      const text = JSON.stringify(v).replace(/^"+|"+$/g, '')
      return { v: formatGoDuration(parseGoDuration(text)), empty: false }
    }
    case 'Duration': {
      if (typeof v === 'number') return { v: formatGoDuration(BigInt(Math.trunc(v))), empty: false }
      if (typeof v === 'string') return { v: formatGoDuration(parseGoDuration(v)), empty: false }
      return hard(`unable to parse duration, expected a duration string or a float, but got ${goTypeOf(v)}`)
    }
    case 'OptionalBytes': {
      if (v === null) return { v: null, empty: false }
      if (typeof v === 'number') return { v: goRoundHalfEven(v), empty: false }
      if (typeof v === 'string') { parseHumanBytes(v); return { v, empty: false } }
      return hard(`unable to parse byte size, expected a size string (e.g., "5GiB") or a number, but got ${goTypeOf(v)}`)
    }
    case 'Strings': {
      let list: string[]
      if (Array.isArray(v)) {
        list = v.map(e => {
          if (e === null) return ''
          if (typeof e !== 'string') return hard(typeError(ctx, jsonKind(e), 'string'))
          return e
        })
      } else if (v === null) list = []
      else if (typeof v === 'string') list = v === '' ? [] : [v]
      else return hard(typeError(ctx, jsonKind(v), 'string'))
      return { v: list.length === 0 ? null : list.length === 1 ? list[0] : list, empty: list.length === 0 }
    }
    case 'AutoNATServiceMode': {
      if (v === null) return { v: '', empty: true }
      if (typeof v !== 'string') { soft(ctx, typeError(ctx, jsonKind(v), 'config.AutoNATServiceMode')); return { v: '', empty: true } }
      if (!['', 'enabled', 'disabled', 'legacy-v1'].includes(v)) return hard(`unknown autonat mode: ${v}`)
      return { v, empty: v === '' }
    }
    case 'swarmLimits':
      if (!onlyBraces(v)) hard('The Swarm.ResourceMgr.Limits configuration has been removed in Kubo 0.19 and should be empty or not present. To set custom libp2p limits, read https://github.com/ipfs/kubo/blob/master/docs/libp2p-resource-management.md#user-supplied-override-limits')
      return { v: false, empty: true }
    case 'experimentalAcceleratedDHTClient':
      if (!onlyBraces(v)) hard('The Experimental.AcceleratedDHTClient key has been moved to Routing.AcceleratedDHTClient in Kubo 0.21, please use this new key and remove the old one.')
      return { v: false, empty: true }
    case 'graphsyncEnabled':
      if (!onlyBraces(v, true)) hard('Support for Experimental.GraphsyncEnabled has been removed in Kubo 0.25.0, please remove this key. For more details see https://github.com/ipfs/kubo/pull/9747.')
      return { v: false, empty: true }
    case 'RawMessage':
      return { v: sortKeysDeep(v), empty: false }
    case 'AddrInfo': {
      if (!isObject(v)) return hard(typeError(ctx, jsonKind(v), 'map[string]interface {}'))
      if (typeof v.ID !== 'string') return hard('interface conversion: interface {} is not string')
      return { v: { Addrs: Array.isArray(v.Addrs) && v.Addrs.length > 0 ? v.Addrs : null, ID: v.ID }, empty: false }
    }
    case 'RouterParser': {
      if (!isObject(v)) return hard(typeError(ctx, jsonKind(v), 'config.Router'))
      const type = v.Type ?? ''
      if (typeof type !== 'string') return hard(typeError({ struct: 'Router', stack: ['Type'] }, jsonKind(type), 'config.RouterType'))
      return { v: { Type: type, Parameters: sortKeysDeep(v.Parameters ?? null) }, empty: false }
    }
  }
}

/** fmt "%.0f": round half to even. */
function goRoundHalfEven (n: number): string {
  const r = Math.round(n)
  const out = Math.abs(n % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r
  return Object.is(out, -0) ? '-0' : String(out)
}

/** The deprecated doNotUse keys accept only (nested) empty objects, and graphsync also `false`. */
function onlyBraces (v: Json, allowFalse = false): boolean {
  if (allowFalse && v === false) return true
  if (!isObject(v)) return false
  return Object.values(v).every(x => onlyBraces(x, allowFalse))
}

/**
 * Decode a JSON config into Kubo's struct and encode it back (config.FromMap + config.ToMap):
 * unknown keys dropped, missing fields added, struct order, omitempty, custom marshallers.
 * Throws ConfigDecodeError with Go's text.
 */
export function normalizeConfig (cfg: Json): KuboConfig {
  const ctx: Ctx = { struct: '', stack: [] }
  const out = decode(CONFIG_TYPE, cfg, ctx)
  if (ctx.soft != null) throw new ConfigDecodeError(ctx.soft)
  return out.v as KuboConfig
}

/** common.MapMergeDeep: right's values win; nested objects merge. */
export function mergeDeep (left: { [k: string]: Json }, right: { [k: string]: Json }): { [k: string]: Json } {
  const out: { [k: string]: Json } = { ...left }
  for (const [k, rv] of Object.entries(right)) {
    const lv = getOwn(out, k)
    setOwn(out, k, isObject(rv) && isObject(lv) ? mergeDeep(lv, rv) : rv)
  }
  return out
}

/** fsrepo's r.Config(): the stored config as Kubo's struct sees it. */
export function repoConfig (store: ConfigStore): KuboConfig {
  try {
    return normalizeConfig(store.get())
  } catch (err) {
    throw new Error(`failure to decode config: ${(err as Error).message}`)
  }
}

/**
 * fsrepo's SetConfig: the struct's JSON is merged into the stored map (unknown keys and omitted
 * fields survive), then written as Go writes a map (keys sorted).
 */
export async function setRepoConfig (store: ConfigStore, cfg: KuboConfig): Promise<void> {
  await store.replace(sortKeysDeep(mergeDeep(store.get(), cfg)) as KuboConfig)
}
