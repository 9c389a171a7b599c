// _redirects files (IPIP-0002, spec web-redirects-file): parsing and matching, with the rules and error
// texts of go-ipfs-redirects-file, which boxo uses.
export const MAX_REDIRECTS_FILE_SIZE = 65536

export interface RedirectRule {
  from: string
  to: string
  status: number
}

const VALID_STATUS = new Set([200, 301, 302, 303, 307, 308, 404, 410, 451])

function parseFrom (s: string): string {
  const splats = s.split('*').length - 1
  if (splats > 0) {
    if (!s.endsWith('*')) throw new Error('path must end with asterisk')
    if (splats > 1) throw new Error('path can have at most one asterisk')
  }
  if (!s.startsWith('/')) throw new Error("path must begin with '/'")
  return s
}

function parseTo (s: string): string {
  if (!s.startsWith('/')) {
    let scheme = ''
    try { scheme = new URL(s).protocol } catch {}
    if (!['http:', 'https:', 'ipfs:', 'ipns:'].includes(scheme)) throw new Error('invalid URL scheme')
  }
  return s
}

function parseStatus (s: string): number {
  if (s.endsWith('!')) throw new Error('forced redirects (or "shadowing") are not supported')
  if (!/^[+-]?\d+$/.test(s)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`)
  const code = Number(s)
  if (!VALID_STATUS.has(code)) throw new Error(`status code ${code} is not supported`)
  return code
}

/** Parse a _redirects file; errors carry go-ipfs-redirects-file's texts. */
export function parseRedirects (bytes: Uint8Array): RedirectRule[] {
  if (bytes.byteLength > MAX_REDIRECTS_FILE_SIZE) throw new Error(`redirects file size cannot exceed ${MAX_REDIRECTS_FILE_SIZE} bytes`)
  const rules: RedirectRule[] = []
  for (const raw of Buffer.from(bytes).toString('utf8').split('\n')) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const fields = line.split(/\s+/)
    if (fields.length <= 1) throw new Error("missing 'to' path")
    if (fields.length > 3) throw new Error("must match format 'from to [status]'")
    let from: string, to: string
    try { from = parseFrom(fields[0]) } catch (err) { throw new Error(`parsing 'from': ${(err as Error).message}`) }
    try { to = parseTo(fields[1]) } catch (err) { throw new Error(`parsing 'to': ${(err as Error).message}`) }
    let status = 301
    if (fields.length > 2) {
      try { status = parseStatus(fields[2]) } catch (err) { throw new Error(`parsing status ${JSON.stringify(fields[2])}: ${(err as Error).message}`) }
    }
    rules.push({ from, to, status })
  }
  return rules
}

/**
 * Match a URL path (relative to the content root, no trailing slash) against a rule's `from`
 * (ucarion/urlpath semantics: `:name` matches one segment, a final `*` the rest). Returns the `to`
 * with placeholders and `:splat` filled in, or undefined.
 */
export function matchRule (rule: RedirectRule, urlPath: string): string | undefined {
  const pattern = rule.from.replace(/\/$/, '').split('/')
  const trailing = pattern.length > 0 && pattern[pattern.length - 1] === '*'
  if (trailing) pattern.pop()
  const params = new Map<string, string>()
  let s = urlPath
  for (let i = 0; i < pattern.length; i++) {
    const seg = pattern[i]
    let cut = s.indexOf('/')
    let next = cut + 1
    if (cut < 0) {
      if (i !== pattern.length - 1) return undefined
      cut = s.length
      next = s.length
    }
    const part = s.slice(0, cut)
    if (seg.startsWith(':')) params.set(seg.slice(1), part)
    else if (part !== seg) return undefined
    s = s.slice(next)
  }
  if (!trailing && s !== '') return undefined
  let to = rule.to
  // longer names first, so :year is not cut by :y
  for (const [name, value] of [...params].sort((a, b) => b[0].length - a[0].length)) {
    to = to.split(':' + name).join(value)
  }
  return to.split(':splat').join(trailing ? s : '')
}
