// Multibase codecs by name and by prefix, as go-multibase names them.
import { bases } from 'multiformats/basics'
import type { MultibaseCodec } from 'multiformats'

const byName = new Map<string, MultibaseCodec<string>>()
const byPrefix = new Map<string, MultibaseCodec<string>>()
for (const codec of Object.values(bases) as Array<MultibaseCodec<string>>) {
  byName.set(codec.name, codec)
  byPrefix.set(codec.prefix, codec)
}

/** A multibase by name (`base32`) or single-character prefix (`b`); undefined when unknown. */
export function multibase (nameOrPrefix: string): MultibaseCodec<string> | undefined {
  return byName.get(nameOrPrefix) ?? byPrefix.get(nameOrPrefix)
}

/** The multibase a string is encoded in, from its prefix. */
export function multibaseOf (text: string): MultibaseCodec<string> | undefined {
  const first = String.fromCodePoint(text.codePointAt(0) ?? 0)
  return byPrefix.get(first)
}

export function allMultibases (): Array<MultibaseCodec<string>> {
  return [...byName.values()]
}
