// The repo config: read once, changed through this store, written atomically (temp file, fsync, rename).
import { promises as fs } from 'node:fs'
import path from 'node:path'
import type { Json, KuboConfig } from './defaults.js'
import { writeFileAtomic } from '../util/fs.js'
import { getOwn, setOwn } from '../util/own.js'

export type { Json, KuboConfig } from './defaults.js'

export interface ConfigStore {
  /** file path ('' in memory) */
  readonly file: string
  /** a deep copy of the whole config */
  get: () => KuboConfig
  /** the value at a dotted key, or undefined */
  getKey: (key: string) => Json | undefined
  /** set a dotted key, creating objects on the way, then persist */
  setKey: (key: string, value: Json) => Promise<void>
  /** replace the whole config, then persist */
  replace: (cfg: KuboConfig) => Promise<void>
  /** listeners run after every change */
  onChange: (fn: (cfg: KuboConfig) => void) => void
}

/** Split a dotted key path. */
export const keyParts = (key: string): string[] => key.split('.')

export function getPath (cfg: Json, parts: string[]): Json | undefined {
  let cur: Json | undefined = cfg
  for (const part of parts) {
    if (cur == null || typeof cur !== 'object' || Array.isArray(cur)) return undefined
    cur = getOwn(cur as Record<string, Json>, part)
  }
  return cur
}

export function setPath (cfg: KuboConfig, parts: string[], value: Json): void {
  let cur: Record<string, Json> = cfg
  for (const part of parts.slice(0, -1)) {
    const next = getOwn(cur, part)
    if (next == null || typeof next !== 'object' || Array.isArray(next)) setOwn(cur, part, {})
    cur = getOwn(cur, part) as Record<string, Json>
  }
  setOwn(cur, parts[parts.length - 1], value)
}

/** Kubo's common.MapGetKV: the value at a dotted key, or `X not found` / `X key is not a map`. */
export function mapGetKV (cfg: Json, key: string): Json {
  const parts = keyParts(key)
  let cur: Json = cfg
  for (let i = 0; i < parts.length; i++) {
    const sofar = parts.slice(0, i).join('.')
    if (cur == null || typeof cur !== 'object' || Array.isArray(cur)) throw new Error(`${sofar} key is not a map`)
    if (!Object.hasOwn(cur, parts[i])) throw new Error(`${sofar !== '' ? sofar + '.' : ''}${parts[i]} not found`)
    cur = getOwn(cur, parts[i]) as Json
  }
  return cur
}

/** Kubo's common.MapSetKV: creates missing or null objects on the way, fails on other values. */
export function mapSetKV (cfg: KuboConfig, key: string, value: Json): void {
  const parts = keyParts(key)
  let cur: Json = cfg
  for (let i = 0; i < parts.length; i++) {
    if (cur == null || typeof cur !== 'object' || Array.isArray(cur)) throw new Error(`${parts.slice(0, i).join('.')} key is not a map`)
    if (i === parts.length - 1) {
      setOwn(cur, parts[i], value)
      break
    }
    if (getOwn(cur, parts[i]) == null) setOwn(cur, parts[i], {})
    cur = getOwn(cur, parts[i]) as Json
  }
}

/** Kubo writes config as 2-space indented JSON. */
export const serializeConfig = (cfg: KuboConfig): string => JSON.stringify(cfg, null, 2)

export function createConfigStore (initial: KuboConfig, file = ''): ConfigStore {
  let current: KuboConfig = structuredClone(initial)
  const listeners: Array<(cfg: KuboConfig) => void> = []
  let writing: Promise<void> = Promise.resolve()
  const persist = async (): Promise<void> => {
    const text = serializeConfig(current)
    writing = writing.then(async () => { if (file !== '') await writeFileAtomic(file, text, 0o600) })
    await writing
    for (const l of listeners) l(structuredClone(current))
  }
  return {
    file,
    get: () => structuredClone(current),
    getKey: (key) => {
      const v = getPath(current, keyParts(key))
      // a copy only of what can be mutated (structuredClone of a string costs as much as a small object's)
      return v !== null && typeof v === 'object' ? structuredClone(v) : v
    },
    setKey: async (key, value) => {
      setPath(current, keyParts(key), structuredClone(value))
      await persist()
    },
    replace: async (cfg) => {
      current = structuredClone(cfg)
      await persist()
    },
    onChange: (fn) => { listeners.push(fn) }
  }
}

export async function loadConfigFile (file: string): Promise<KuboConfig> {
  const text = await fs.readFile(file, 'utf8')
  try {
    return JSON.parse(text) as KuboConfig
  } catch (err) {
    throw new Error(`failure to decode config: ${(err as Error).message}`)
  }
}

export const configPath = (repoPath: string, configFile?: string): string =>
  configFile != null && configFile !== '' ? path.resolve(repoPath, configFile) : path.join(repoPath, 'config')
