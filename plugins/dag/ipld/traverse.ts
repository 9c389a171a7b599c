// go-ipld-prime traversal.Get inside one decoded block (no link loading), with its error texts.
import type { IpldValue } from './model.js'

const quote = (s: string): string => JSON.stringify(s)

/** Optional fields of the dag-pb schema: absent reads as null (datamodel.Absent) rather than failing. */
const PB_OPTIONAL = new Set(['Data', 'Name', 'Tsize'])

/** Follow `segments` inside `root` (typedPb: a dag-pb node); links met on the way are returned as they are. */
export function traverseValue (root: IpldValue, segments: readonly string[], typedPb = false): IpldValue {
  let node = root
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]
    const at = quote(segments.slice(0, i).join('/'))
    if (node instanceof Map) {
      const next = node.get(seg)
      if (next === undefined && typedPb && PB_OPTIONAL.has(seg)) { node = null; continue }
      if (next === undefined) throw new Error(`error traversing segment ${quote(seg)} on node at ${at}: key not found: ${quote(seg)}`)
      node = next
    } else if (Array.isArray(node)) {
      if (!/^-?[0-9]+$/.test(seg)) {
        throw new Error(`error traversing segment ${quote(seg)} on node at ${at}: the segment cannot be parsed as a number and the node is a list`)
      }
      const idx = Number(seg)
      if (idx < 0 || idx >= node.length) throw new Error(`error traversing segment ${quote(seg)} on node at ${at}: key not found: ${quote(seg)}`)
      node = node[idx]
    } else {
      throw new Error(`cannot traverse node at ${at}: cannot traverse terminals`)
    }
  }
  return node
}

