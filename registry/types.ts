// The command declaration types: one declaration per command drives the RPC router,
// /api/v0/commands and the CLI.
import type { AwilixContainer } from 'awilix'
import type { Cradle, RequestCradle } from '../core/cradle.js'
import type { Logger } from '../core/logger/index.js'

export type Status = 'active' | 'experimental' | 'deprecated' | 'removed'

/** single: one JSON value; ndjson: a stream of values (zero values = empty 200); bytes: raw byte stream */
export type OutputKind = 'single' | 'ndjson' | 'bytes'

export interface ValueOf {
  bool: boolean
  int: number
  uint: number
  int64: number
  uint64: number
  float: number
  string: string
  strings: string[]
}
export type OptionType = keyof ValueOf

export interface OptionSpec<T extends OptionType = OptionType> {
  type: T
  description: string
  /** other names, e.g. ['r'] (Kubo's short names) */
  aliases?: readonly string[]
  default?: ValueOf[T]
  /** strings only: the CLI also splits each value on this delimiter (HTTP takes each value whole, as Kubo) */
  delimiter?: string
}

export interface ArgSpec {
  /** shown in help and /commands; HTTP uses repeated ?arg= */
  name: string
  kind: 'string' | 'file'
  required?: boolean
  /** only the last argument */
  variadic?: boolean
  /** string: when no ?arg= is given, values come line by line from the body; file: the CLI sends stdin as a file */
  stdin?: boolean
  /** file args: the CLI may walk directories (add -r) */
  recursive?: boolean
  description: string
}

// FileEntry lives in core (the importer reads it); re-exported here for plugins and front ends.
export type { FileEntry } from '../core/unixfs/entry.js'
import type { FileEntry } from '../core/unixfs/entry.js'

/** The shape of a value a 'bytes' command returns. */
export interface BytesOutput {
  body: AsyncIterable<Uint8Array> | Uint8Array
  /** X-Content-Length */
  length?: number
  /** overrides the spec's contentType */
  contentType?: string
}

type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S
export type OptionValues<O extends Record<string, OptionSpec>> = {
  [K in keyof O & string as Camel<K>]: O[K] extends { default: unknown }
    ? ValueOf[O[K]['type']]
    : ValueOf[O[K]['type']] | undefined
}

export interface GlobalOptionValues {
  encoding: string
  offline?: boolean
  local?: boolean
  cidBase?: string
  upgradeCidv0InOutput?: boolean
  timeout?: string
  streamChannels?: boolean
  configFile?: string
  repoDir?: string
  api?: string
  apiAuth?: string
  [key: string]: unknown
}

export interface Invocation<Opts = Record<string, unknown>> {
  path: readonly string[]
  args: string[]
  /** file arguments from the multipart body, in order */
  files?: AsyncIterable<FileEntry>
  options: Opts & GlobalOptionValues
  /** options exactly as given on the wire, keyed by canonical name (for commands that must know what was set) */
  given: ReadonlySet<string>
  deps: RequestCradle
  signal: AbortSignal
  log: Logger
}

export interface CommandSpec<O extends Record<string, OptionSpec> = Record<string, OptionSpec>, Out = any> {
  path: readonly string[]
  /** Kubo's Tagline */
  description: string
  /** long help */
  help?: string
  status?: Status
  /** required for deprecated/removed: "use 'ipfs routing' instead" */
  replacement?: string
  args?: readonly ArgSpec[]
  options?: O
  /** false = Kubo NoRemote: 404 over RPC, CLI runs it in-process */
  http?: boolean
  /** false = Kubo NoLocal: the CLI needs a running daemon */
  cli?: boolean
  /** the CLI runs it in-process even when a daemon is up, without opening the repo (Kubo doesNotUseRepo) */
  noRepo?: boolean
  /** exists only in the CLI (daemon, init): not routed, not in /api/v0/commands */
  cliOnly?: boolean
  /**
   * in-process CLI runs: 'readonly' opens config and keystore without the repo lock (works beside a daemon,
   * like Kubo's key export); 'config' gives the handler only `config` and `repoPath`, under the repo lock (no stores, no plugins)
   */
  repoAccess?: 'readonly' | 'config'
  /** string-stdin args: after required args, append all remaining body lines (Kubo ParseBodyArgs) */
  bodyArgs?: boolean
  output: OutputKind | ((opts: OptionValues<O> & GlobalOptionValues) => OutputKind)
  /**
   * ndjson: commit and flush the headers before the first value (Kubo's http.Flusher in `pubsub sub`:
   * the client learns the subscription is live before any message); errors thrown by `run` before it
   * returns its iterable still get the JSON error response.
   */
  flushHeaders?: boolean
  /** CLI only: rewrite the string arguments before sending them (Kubo's PreRun urlArgsEncoder) */
  cliArgs?: (args: string[]) => string[]
  /** bytes output content type; default text/plain (Kubo's choice for byte streams) */
  contentType?: string
  run: (call: Invocation<OptionValues<O>>) => Promise<Out> | AsyncIterable<Out> | Out
  /** text encoder, used for ?encoding=text and by the CLI; for ndjson called per value */
  text?: (value: Out, call: TextCall<OptionValues<O>>) => string
  /**
   * `text` is go-ipfs-cmds' generic encoder (Go's %v of the value, for ?encoding=text only): Kubo's command has
   * no text encoder, so its CLI prints JSON instead (cli/run.go), as a command without `text` does here.
   */
  textGeneric?: boolean
  /**
   * CLI JSON (--enc=json, or text without an encoder): the value as Kubo's CLI re-encodes it, decoded into the
   * command's Go type, whose own MarshalJSON may order keys unlike the wire (routing get)
   */
  cliJson?: (value: Out) => unknown
  /** `text` returns bytes as a binary string (one char per byte): ?encoding=text sends those bytes, not UTF-8 */
  textBytes?: boolean
  /** ndjson text: where the CLI writes each rendered value (Kubo's PostRun writes progress to stderr) */
  textStream?: (value: Out) => 'stdout' | 'stderr'
  /**
   * Client-side handling in the CLI instead of plain rendering (Kubo's PostRun): e.g. `get` writes
   * files, `add` draws a progress bar. Gets the decoded outcome, whether it came over HTTP or in-process.
   */
  cliRender?: (outcome: Outcome, call: TextCall<OptionValues<O>>, io: CliIO) => Promise<void>
  /**
   * CLI only, before the request is built (Kubo's PreRun): options to set when not given, keyed by
   * canonical name with wire values (`add` turns `progress` on when stderr is a terminal).
   */
  cliDefaults?: (given: (name: string) => string | undefined, io: { isTTY: boolean }) => Record<string, string>
}

/** What a text encoder sees: the options (typed) and the path; no deps, because the CLI renders remotely fetched values. */
export interface TextCall<Opts = Record<string, unknown>> {
  path: readonly string[]
  args: string[]
  options: Opts & GlobalOptionValues
}

/** What a cliRender hook may use. */
export interface CliIO {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
  /** stderr is a terminal (progress bars) */
  isTTY: boolean
  cwd: string
  /** total bytes of the local files being sent, when known (add's progress bar) */
  inputSize?: number
}

export interface GroupSpec {
  path: readonly string[]
  description: string
  help?: string
  status?: Status
  replacement?: string
  /** inherited by every descendant (Kubo: files --flush) */
  options?: Record<string, OptionSpec>
  http?: boolean
  cli?: boolean
  noRepo?: boolean
}

export interface Plugin {
  /** family name: the logger component and the Plugins.Plugins.<name> config key */
  name: string
  /** cradle keys this plugin needs; startup fails fast when one is missing */
  requires?: readonly string[]
  /** add services to the container (with disposers) */
  register?: (container: AwilixContainer<Cradle>) => void
  groups?: readonly GroupSpec[]
  commands: readonly CommandSpec<any, any>[]
}

/** What a third-party plugin module's default export is called with. */
export interface PluginInit {
  [key: string]: unknown
}
export type PluginFactory = (init: any) => Plugin | Promise<Plugin>

/** A node of the command tree (registry/registry.ts). */
export interface TreeNode {
  name: string
  path: readonly string[]
  command?: CommandSpec
  group?: GroupSpec
  plugin?: string
  children: Map<string, TreeNode>
}

/** A parsed invocation, ready to execute (Registry.prepare). */
export interface Prepared {
  node: TreeNode
  command: CommandSpec
  args: string[]
  /** typed, keyed by canonical wire name, defaults filled */
  values: Record<string, unknown>
  given: Set<string>
  files?: AsyncIterable<FileEntry>
  output: OutputKind
}

/** What running a command gives every front end (registry/execute.ts). */
export type Outcome =
  | { kind: 'single', value: unknown }
  | { kind: 'ndjson', items: AsyncIterable<unknown> }
  | { kind: 'bytes', body: AsyncIterable<Uint8Array>, length?: number, contentType?: string }
