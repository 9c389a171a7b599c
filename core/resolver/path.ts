// Content paths as Kubo parses them: boxo path.NewPath / NewPathFromURI and Kubo's
// cmdutils.PathOrCidPath (a bare CID means /ipfs/<cid>) and CidFromArg, with boxo's error texts.
import { CID } from 'multiformats/cid'
import { RpcError } from '../errors.js'
import { cidBytes, decodeCid } from '../go/cid.js'
import { goQuote } from '../go/strings.js'

export type Namespace = 'ipfs' | 'ipld' | 'ipns'

export interface ContentPath {
  namespace: Namespace
  /** the root segment: a CID for ipfs/ipld, a name for ipns */
  root: string
  /** the root CID (ipfs/ipld only) */
  cid?: CID
  /** the segments after the root */
  segments: string[]
  /** the cleaned path (trailing slash kept), as boxo's Path.String() */
  text: string
}

/** boxo ErrInvalidPath: `invalid path "<input>": <reason>`. */
export class InvalidPathError extends RpcError {
  constructor (readonly input: string, readonly reason: string) {
    super(`invalid path ${goQuote(input)}: ${reason}`)
  }
}

/** Go's path.Clean. */
export function goPathClean (p: string): string {
  if (p === '') return '.'
  const rooted = p[0] === '/'
  const n = p.length
  let out = rooted ? '/' : ''
  let r = rooted ? 1 : 0
  let dotdot = rooted ? 1 : 0
  while (r < n) {
    if (p[r] === '/') {
      r++
    } else if (p[r] === '.' && (r + 1 === n || p[r + 1] === '/')) {
      r++
    } else if (p[r] === '.' && p[r + 1] === '.' && (r + 2 === n || p[r + 2] === '/')) {
      r += 2
      if (out.length > dotdot) {
        let w = out.length - 1
        while (w > dotdot && out[w] !== '/') w--
        out = out.slice(0, w)
      } else if (!rooted) {
        if (out.length > 0) out += '/'
        out += '..'
        dotdot = out.length
      }
    } else {
      if ((rooted && out.length !== 1) || (!rooted && out.length !== 0)) out += '/'
      const next = p.indexOf('/', r)
      const end = next < 0 ? n : next
      out += p.slice(r, end)
      r = end
    }
  }
  return out === '' ? '.' : out
}

/** boxo path.StringToSegments: cleaned, no empty segments. */
export function stringToSegments (str: string): string[] {
  let s = goPathClean(str)
  if (s === '.') return []
  if (s.endsWith('/')) s = s.slice(0, -1)
  if (s.startsWith('/')) s = s.slice(1)
  return s === '' ? [] : s.split('/')
}

/** go-cid Decode with its error text, as a multiformats CID. */
export function decodeGoCid (text: string): CID {
  return CID.decode(cidBytes(decodeCid(text)))
}

/** boxo path.NewPath: a canonical /ipfs, /ipld or /ipns path. */
export function newPath (str: string): ContentPath {
  const segments = stringToSegments(str)
  if (!str.startsWith('/') || segments.length < 2 || segments[1] === '') {
    throw new InvalidPathError(str, 'path does not have enough components')
  }
  let text = '/' + segments.join('/')
  if (str.endsWith('/')) text += '/'
  const [ns, root] = segments
  switch (ns) {
    case 'ipfs':
    case 'ipld': {
      let cid: CID
      try {
        cid = decodeGoCid(root)
      } catch (err) {
        throw new InvalidPathError(str, (err as Error).message)
      }
      return { namespace: ns, root, cid, segments: segments.slice(2), text }
    }
    case 'ipns':
      return { namespace: ns, root, segments: segments.slice(2), text }
    default:
      throw new InvalidPathError(str, `unknown namespace: ${goQuote(ns)}`)
  }
}

const URI_SCHEMES = ['ipfs', 'ipns', 'ipld'] as const

/** boxo normalizeURIScheme: ipfs://x/y, ipfs:x/y → /ipfs/x/y (scheme case-insensitive). */
function normalizeUriScheme (str: string): string {
  for (const ns of URI_SCHEMES) {
    if (str.length > ns.length && str[ns.length] === ':' && str.slice(0, ns.length).toLowerCase() === ns) {
      let rest = str.slice(ns.length + 1)
      if (rest.startsWith('//')) rest = rest.slice(2)
      return `/${ns}/${rest}`
    }
  }
  return str
}

/** boxo path.NewPathFromURI. */
export function newPathFromUri (str: string): ContentPath {
  return newPath(normalizeUriScheme(str))
}

/**
 * Kubo cmdutils.PathOrCidPath: a content path, a native IPFS URI, or a bare CID (with an optional
 * /sub/path); on failure the error of the first attempt.
 */
export function parsePath (str: string): ContentPath {
  if (!normalizeUriScheme(str).startsWith('/')) {
    // a bare CID: the first attempt can only fail, and its error is wanted only if the second fails too
    // (not thrown and caught on every call: building the error was most of a small command's parsing)
    try {
      return newPath('/ipfs/' + str)
    } catch {
      throw new InvalidPathError(str, 'path does not have enough components')
    }
  }
  try {
    return newPathFromUri(str)
  } catch (err) {
    try {
      return newPath('/ipfs/' + str)
    } catch {
      throw err
    }
  }
}

/**
 * Kubo cmdutils.CidFromArg: a bare CID, or an immutable path / URI naming exactly a root CID
 * (files chroot, filestore ls|verify).
 */
export function cidFromArg (arg: string): CID {
  try {
    return decodeGoCid(arg)
  } catch {}
  const p = parsePath(arg)
  if (p.namespace === 'ipns' || p.cid == null) throw new RpcError(`path was expected to be immutable: ${goQuote(arg)}`)
  if (p.segments.length > 0) throw new RpcError(`${goQuote(arg)} points below a root CID, expected a single CID`)
  return p.cid
}

/** boxo path.FromCid. */
export function pathFromCid (cid: CID): ContentPath {
  const root = cid.toString()
  return { namespace: 'ipfs', root, cid, segments: [], text: `/ipfs/${root}` }
}
