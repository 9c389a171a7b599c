// Objects keyed by outside text (config keys, JSON bodies, headers): read and write own properties only,
// so a key such as `__proto__`, `constructor` or `prototype` is an ordinary key (as in a Go map) and never
// reaches a prototype.

/** The own property `key` of `obj`, or undefined (never an inherited one such as `__proto__`). */
export function getOwn<T> (obj: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined
}

/** Define `key` on `obj` as an own enumerable data property (`__proto__` included). */
export function setOwn<T> (obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true })
}

/** A plain object built from entries with own properties only. */
export function fromEntriesOwn<T> (entries: Iterable<[string, T]>): Record<string, T> {
  const out: Record<string, T> = {}
  for (const [k, v] of entries) setOwn(out, k, v)
  return out
}
