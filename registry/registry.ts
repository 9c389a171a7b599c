// The command tree. One tree drives the RPC router, /api/v0/commands and the CLI.
import { RemovedCommandError, RequestParseError } from '../core/errors.js'
import { camelize, coerceOptions, fillDefaults, type ResolvedOption } from './coerce.js'
import { globalOptions } from './global-options.js'
import type { AwilixContainer } from 'awilix'
import type { Cradle } from '../core/cradle.js'
import { LOAD_COMMAND, type LazyCommand } from './manifest.js'
import type { CommandSpec, FileEntry, OptionSpec, Plugin, Prepared, Status, TreeNode } from './types.js'

export type { Prepared, TreeNode } from './types.js'

// The registry is a container key; it is declared here so that core/ never imports the registry.
declare module '../core/cradle.js' {
  interface Cradle {
    /** the command tree (registry/registry.ts) */
    registry: Registry
  }
}


/** Kubo's /api/v0/commands node shape. */
export interface CommandsOutput {
  Name: string
  Subcommands: CommandsOutput[]
  Options: Array<{ Names: string[] }>
}

export interface InvokeInput {
  /** positional values (repeated ?arg=) */
  args?: string[]
  /** raw wire options: every value given per key; coerced with Kubo's rules */
  query?: Iterable<[string, string[]]>
  /** typed options keyed by wire name (embedding and tests); merged over `query` */
  options?: Record<string, unknown>
  files?: AsyncIterable<FileEntry>
  /** lines of a string-stdin body (Kubo's body args) */
  stdin?: string[]
  /** the CLI rejects extra positionals (HTTP ignores them) */
  strictArgs?: boolean
}


const warned = new Set<string>()
/** resolveHttp answers kept (paths with an argument in them make the set open) */
const ROUTES_MAX = 1024

export class Registry {
  readonly root: TreeNode = { name: 'ipfs', path: [], children: new Map() }
  readonly globalOptions: Record<string, OptionSpec> = globalOptions
  private readonly plugins: Plugin[] = []
  /** option tables by path, cleared whenever the tree changes */
  private readonly tables = new Map<string, Map<string, ResolvedOption>>()
  /** resolveHttp answers by path, cleared whenever the tree changes */
  private readonly routes = new Map<string, { node: TreeNode, pathArg?: string } | null>()
  /** called once per deprecated path when it first runs */
  onDeprecated: (path: string, replacement?: string) => void = () => {}

  add (plugin: Plugin): void {
    this.tables.clear()
    this.routes.clear()
    for (const group of plugin.groups ?? []) {
      const node = this.ensure(group.path, plugin.name)
      if (node.group != null) throw new Error(`duplicate group /${group.path.join('/')}`)
      node.group = group
    }
    for (const command of plugin.commands) {
      const node = this.ensure(command.path, plugin.name)
      if (node.command != null) throw new Error(`duplicate command /${command.path.join('/')}`)
      node.command = command.status === 'removed' ? removedStub(command) : command
      node.plugin = plugin.name
    }
    this.plugins.push(plugin)
  }

  listPlugins (): readonly Plugin[] { return this.plugins }

  /**
   * The implementation of the command at `path`: a command declared from the manifest
   * (registry/manifest.ts) is imported now and replaces its declaration in the tree.
   */
  async load (path: readonly string[]): Promise<CommandSpec | undefined> {
    const node = this.node(path)
    const declared = node?.command as LazyCommand | undefined
    const loader = declared?.[LOAD_COMMAND]
    if (node == null || loader == null) return declared
    const command = await loader()
    node.command = command.status === 'removed' ? removedStub(command) : command
    this.tables.clear()
    this.routes.clear()
    return node.command
  }

  private ensure (path: readonly string[], plugin: string): TreeNode {
    let node = this.root
    for (let i = 0; i < path.length; i++) {
      let child = node.children.get(path[i])
      if (child == null) {
        child = { name: path[i], path: path.slice(0, i + 1), children: new Map(), plugin }
        node.children.set(path[i], child)
      }
      node = child
    }
    return node
  }

  node (path: readonly string[]): TreeNode | undefined {
    let node: TreeNode | undefined = this.root
    for (const seg of path) {
      node = node.children.get(seg)
      if (node == null) return undefined
    }
    return node
  }

  /** Nodes from the root's first child down to the node at `path`. */
  private chain (path: readonly string[]): TreeNode[] {
    const out: TreeNode[] = []
    let node = this.root
    for (const seg of path) {
      const next = node.children.get(seg)
      if (next == null) break
      out.push(next)
      node = next
    }
    return out
  }

  /** The options valid at `path`: global, then every ancestor's, then the command's own (Kubo GetOptions). */
  optionTable (path: readonly string[]): Map<string, ResolvedOption> {
    const key = path.join('/')
    const cached = this.tables.get(key)
    if (cached != null) return cached
    const table = new Map<string, ResolvedOption>()
    const addAll = (opts?: Record<string, OptionSpec>): void => {
      for (const [canonical, spec] of Object.entries(opts ?? {})) {
        for (const name of [canonical, ...(spec.aliases ?? [])]) table.set(name, { canonical, spec })
      }
    }
    addAll(this.globalOptions)
    for (const node of this.chain(path)) {
      addAll(node.group?.options)
      addAll(node.command?.options)
    }
    this.tables.set(key, table)
    return table
  }

  /** A node's description; an implicit parent (no spec) is described by its plugin. */
  description (node: TreeNode): string {
    return node.command?.description ?? node.group?.description ?? `Commands of the ${node.plugin ?? node.name} plugin.`
  }

  /** Status of a node: its own, else inherited from the nearest ancestor that has one. */
  status (path: readonly string[]): Status {
    let status: Status = 'active'
    for (const node of this.chain(path)) {
      const own = node.command?.status ?? node.group?.status
      if (own != null) status = own
    }
    return status
  }

  /** false when the node or an ancestor is NoRemote. */
  httpAllowed (path: readonly string[]): boolean {
    return this.chain(path).every(n => n.command?.http !== false && n.group?.http !== false)
  }

  /** The CLI runs it in-process even with a daemon (Kubo doesNotUseRepo). */
  noRepo (path: readonly string[]): boolean {
    const node = this.node(path)
    return node?.command?.noRepo === true || node?.group?.noRepo === true
  }

  /**
   * Kubo's HTTP path resolution: every segment but the last must be a subcommand; the last is a
   * subcommand, or the first argument of a runnable parent. Returns undefined for 404.
   */
  resolveHttp (segments: string[]): { node: TreeNode, pathArg?: string } | undefined {
    // memoised per path (a request's hot path); forgotten whenever the tree changes
    const key = segments.join('\0')
    const hit = this.routes.get(key)
    if (hit !== undefined) return hit ?? undefined
    const found = this.resolveHttpUncached(segments)
    if (this.routes.size >= ROUTES_MAX) this.routes.clear()
    this.routes.set(key, found ?? null)
    return found
  }

  private resolveHttpUncached (segments: string[]): { node: TreeNode, pathArg?: string } | undefined {
    if (segments.length === 0) return undefined
    const parent = this.node(segments.slice(0, -1))
    if (parent == null) return undefined
    const last = segments[segments.length - 1]
    const child = parent.children.get(last)
    let found: { node: TreeNode, pathArg?: string } | undefined
    if (child != null) found = { node: child }
    else if (parent.command != null && parent !== this.root) found = { node: parent, pathArg: last }
    if (found == null || !this.httpAllowed(found.node.path)) return undefined
    if (found.node.command?.cliOnly === true) return undefined
    return found
  }

  * walk (node: TreeNode = this.root): Generator<TreeNode> {
    if (node !== this.root) yield node
    for (const child of [...node.children.values()].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) {
      yield * this.walk(child)
    }
  }

  /** Kubo's /api/v0/commands tree (CLI-only commands left out, as the daemon's root has no daemon/init). */
  tree (node: TreeNode = this.root): CommandsOutput {
    const own = node === this.root ? this.globalOptions : { ...node.group?.options, ...node.command?.options }
    return {
      Name: node.name,
      Subcommands: [...node.children.values()]
        .filter(c => c.command?.cliOnly !== true)
        .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
        .map(c => this.tree(c)),
      Options: Object.entries(own).map(([name, spec]) => ({ Names: [name, ...(spec.aliases ?? [])] }))
    }
  }

  /** go-ipfs-cmds DebugValidate plus our own rules; [] when all is well. */
  validate (): string[] {
    const problems: string[] = []
    for (const node of this.walk()) {
      const where = '/' + node.path.join('/')
      // parents no plugin declared are implicit: their description comes from the plugin (see description())
      const implicit = node.command == null && node.group == null
      const desc = node.command?.description ?? node.group?.description
      if (!implicit && (desc == null || desc === '')) problems.push(`${where}: no description`)
      const status = node.command?.status ?? node.group?.status
      const replacement = node.command?.replacement ?? node.group?.replacement
      if ((status === 'removed' || status === 'deprecated') && (replacement == null || replacement === '')) {
        problems.push(`${where}: ${status} without replacement`)
      }
      const cmd = node.command
      if (cmd == null) continue
      const args = cmd.args ?? []
      let seenOptional = false
      let stdinCount = 0
      args.forEach((a, i) => {
        if (a.required !== true) seenOptional = true
        else if (seenOptional) problems.push(`${where}: required argument "${a.name}" after an optional one`)
        if (a.variadic === true && i !== args.length - 1) problems.push(`${where}: variadic argument "${a.name}" is not last`)
        if (a.stdin === true) {
          stdinCount++
          if (i !== args.length - 1) problems.push(`${where}: stdin argument "${a.name}" is not last`)
        }
      })
      if (stdinCount > 1) problems.push(`${where}: more than one stdin argument`)
      const names = new Map<string, string>()
      const check = (opts: Record<string, OptionSpec> | undefined, owner: string): void => {
        for (const [canonical, spec] of Object.entries(opts ?? {})) {
          for (const name of [canonical, ...(spec.aliases ?? [])]) {
            const prev = names.get(name)
            if (prev != null && prev !== `${owner}:${canonical}`) problems.push(`${where}: option name "${name}" clashes (${prev} and ${owner}:${canonical})`)
            names.set(name, `${owner}:${canonical}`)
          }
          if (spec.default !== undefined && !defaultMatches(spec)) problems.push(`${where}: default of "${canonical}" does not match type ${spec.type}`)
        }
      }
      check(this.globalOptions, 'global')
      for (const n of this.chain(node.path)) {
        check(n.group?.options, '/' + n.path.join('/'))
        if (n !== node) check(n.command?.options, '/' + n.path.join('/'))
      }
      check(cmd.options, where)
    }
    return problems
  }

  /** Parse and check an invocation: options coerced, defaults filled, arguments assigned and checked. */
  prepare (path: readonly string[], input: InvokeInput): Prepared {
    const node = this.node(path)
    if (node?.command == null) throw new RequestParseError(`unknown command "${path.join(' ')}"`)
    const command = node.command
    const table = this.optionTable(path)
    const { values, given } = coerceOptions(table, input.query ?? [])
    for (const [key, value] of Object.entries(input.options ?? {})) {
      if (value === undefined) continue
      const opt = table.get(key)
      if (opt == null) continue
      values[opt.canonical] = value
      given.add(opt.canonical)
    }
    fillDefaults(table, values)
    const args = assignArgs(command, input.args ?? [], input.stdin, input.files != null, input.strictArgs === true)
    const output = typeof command.output === 'function' ? command.output(camelize(values) as never) : command.output
    return { node, command, args, values, given, files: input.files, output }
  }

  /**
   * Run a command with no transport (unit tests, embedding): a single value, the array of
   * streamed values, or the bytes as one Buffer.
   */
  async invoke (path: readonly string[], input: InvokeInput, container: AwilixContainer<Cradle>, signal: AbortSignal = new AbortController().signal): Promise<any> {
    // loaded here: the CLI parses with the registry without loading the request machinery
    const { execute } = await import('./execute.js')
    await this.load(path)
    const outcome = await execute(this.prepare(path, input), container, { signal })
    if (outcome.kind === 'single') return outcome.value
    if (outcome.kind === 'ndjson') {
      const items: unknown[] = []
      for await (const item of outcome.items) items.push(item)
      return items
    }
    const chunks: Uint8Array[] = []
    for await (const chunk of outcome.body) chunks.push(chunk)
    return Buffer.concat(chunks)
  }
}

function defaultMatches (spec: OptionSpec): boolean {
  const d = spec.default
  switch (spec.type) {
    case 'bool': return typeof d === 'boolean'
    case 'string': return typeof d === 'string'
    case 'strings': return Array.isArray(d)
    default: return typeof d === 'number'
  }
}

function removedStub (command: CommandSpec): CommandSpec {
  return {
    ...command,
    run: () => { throw new RemovedCommandError(`removed, ${command.replacement ?? ''}`.trim()) }
  }
}

/**
 * go-ipfs-cmds argument assignment (http/parse.go) and CheckArguments (command.go): optional
 * definitions yield to required ones, a variadic takes the rest, file arguments come only from the
 * body; a missing required string takes a body line when it accepts stdin.
 */
export function assignArgs (command: CommandSpec, values: string[], stdin: string[] | undefined, hasFiles: boolean, strict: boolean): string[] {
  const defs = command.args ?? []
  const out: string[] = []
  const lines = stdin != null ? [...stdin] : undefined
  let vi = 0
  for (let i = 0; i < defs.length; i++) {
    const def = defs[i]
    if (def.kind === 'file') {
      if (def.required === true && !hasFiles && !(def.stdin === true && lines != null)) {
        throw new RequestParseError(`file argument '${def.name}' is required`)
      }
      continue
    }
    const left = values.length - vi
    const requiredAfter = defs.slice(i + 1).filter(d => d.kind === 'string' && d.required === true).length
    if (def.required !== true && left <= requiredAfter) {
      // an optional stdin variadic with no values still takes the body lines (Kubo ParseBodyArgs)
      if (def.variadic === true && command.bodyArgs === true && lines != null && def.stdin === true) out.push(...lines.splice(0))
      continue
    }
    if (def.variadic === true) {
      if (left > 0) { out.push(...values.slice(vi)); vi = values.length } else if (def.required === true) {
        const line = lines?.shift()
        if (line === undefined) throw new RequestParseError(`argument "${def.name}" is required`)
        out.push(line)
      }
      if (command.bodyArgs === true && lines != null && def.stdin === true) out.push(...lines.splice(0))
      continue
    }
    if (left > 0) { out.push(values[vi++]); continue }
    if (def.required === true) {
      const line = def.stdin === true ? lines?.shift() : undefined
      if (line === undefined) throw new RequestParseError(`argument "${def.name}" is required`)
      out.push(line)
    }
  }
  if (vi < values.length) {
    if (strict) throw new RequestParseError(`expected ${defs.filter(d => d.kind === 'string').length} argument(s), got ${values.length}`)
    // HTTP keeps the count, extra values arrive empty (code-derived in wire.md §2.3)
  }
  return out
}
