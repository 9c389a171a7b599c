// The CLI front end, driven by the same registry as the RPC server (go-ipfs-cmds cli/ + http/client.go):
// parse argv with the command's spec, POST to the daemon (or run in-process), decode, render with `text`.
import type http from 'node:http'
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { Registry, type TreeNode } from '../registry/registry.js'
import { ErrorCode, errorMessage, InvalidArgumentError, NotOnlineError, RequestParseError, RpcError } from '../core/errors.js'
import { defaultRepoPath, isInitialized, readApiFile, readRepoConfig } from '../core/repo/paths.js'
import { acquireLock, repoLocked } from '../core/repo/lock.js'
import { configPath, createConfigStore, loadConfigFile } from '../core/config/index.js'
import type { Outcome } from '../registry/execute.js'
import { camelize } from '../registry/coerce.js'
import type { CommandSpec, FileEntry, Plugin, Prepared, TextCall } from '../registry/types.js'
import type { RequestCradle } from '../core/cradle.js'
import type { Logging } from '../core/logger/index.js'
import { enabledPlugins } from './plugins-config.js'
import { manifestPlugins } from './cli-manifest.js'
import { goJson } from './go-json.js'
import { authHeaderFor, listenTarget } from './addr.js'
import { helpText } from './help.js'
import { collectFiles, partName, totalSize } from './cli-files.js'

// The CLI loads only what the command it runs needs: its tree comes from the manifest
// (server/cli-manifest.ts), the command's module is imported once parsed, and a node (core, stores,
// every plugin) only for commands that run in-process on a repo.
const require = createRequire(import.meta.url)

/** what Go's strconv.ParseBool accepts */
const GO_BOOLS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False'])

/** the registry's errors about positional arguments (missing or too many) */
const ARGUMENT_ERROR = /^(argument "[^"]*" is required|file argument '[^']*' is required|expected \d+ argument\(s\), got \d+)$/

interface ParsedArgv {
  path: string[]
  node: TreeNode
  positionals: string[]
  raw: Map<string, string[]>
  help?: 'long' | 'short'
}

/** go-ipfs-cmds cli/parse.go: subcommands first, options anywhere, `--` ends options. */
export function parseArgv (registry: Registry, argv: string[]): ParsedArgv {
  let node = registry.root
  const path: string[] = []
  const positionals: string[] = []
  const raw = new Map<string, string[]>()
  let help: ParsedArgv['help']
  const put = (key: string, value: string): void => {
    const list = raw.get(key)
    if (list == null) raw.set(key, [value])
    else list.push(value)
  }
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]
    if (tok === '--') { positionals.push(...argv.slice(i + 1)); break }
    if (tok.startsWith('-') && tok !== '-') {
      const body = tok.replace(/^--?/, '')
      const eq = body.indexOf('=')
      const name = eq >= 0 ? body.slice(0, eq) : body
      if (name === 'help') { help = 'long'; continue }
      if (name === 'h') { help = help ?? 'short'; continue }
      const table = registry.optionTable(path)
      const opt = table.get(name)
      if (opt == null && !tok.startsWith('--') && eq < 0 && name.length > 1) {
        // grouped short flags (go-ipfs-cmds parseShortOpts: `add -rQ`, `ping -n1`): bools, then one option that
        // takes the rest of the word, or the next word, as its value
        const letters = [...name]
        for (const [j, c] of letters.entries()) {
          const o = table.get(c)
          if (o == null) throw new RequestParseError(`unknown option "${name}"`)
          if (o.spec.type === 'bool') { put(c, 'true'); continue }
          if (j < letters.length - 1) { put(c, letters.slice(j + 1).join('')); break }
          if (i + 1 >= argv.length) throw new RequestParseError(`missing argument for option "${o.canonical}"`)
          put(c, argv[++i])
        }
        continue
      }
      if (opt == null) throw new RequestParseError(`unknown option "${name}"`)
      if (eq >= 0) {
        const value = body.slice(eq + 1)
        // go-ipfs-cmds cli/parse.go reads a bool's value with strconv.ParseBool
        if (opt.spec.type === 'bool' && !GO_BOOLS.has(value)) throw new RequestParseError(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`)
        put(name, value)
        continue
      }
      if (opt.spec.type === 'bool') { put(name, 'true'); continue }
      if (i + 1 >= argv.length) throw new RequestParseError(`missing argument for option "${opt.canonical}"`)
      put(name, argv[++i])
      continue
    }
    const child = positionals.length === 0 ? node.children.get(tok) : undefined
    if (child != null) { node = child; path.push(tok); continue }
    positionals.push(tok)
  }
  return { path, node, positionals, raw, help }
}

async function readStdin (): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

async function * stdinStream (): AsyncGenerator<Uint8Array> {
  for await (const c of process.stdin) yield c as Buffer
}

/** A multipart body as kubo's clients send it. */
async function * multipartBody (entries: FileEntry[], boundary: string): AsyncGenerator<Uint8Array> {
  let i = 0
  for (const e of entries) {
    const name = partName(e, i++ === 0 ? 'file' : `file-${i - 1}`)
    const type = e.type === 'directory' ? 'application/x-directory' : e.type === 'symlink' ? 'application/symlink' : 'application/octet-stream'
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${encodeURIComponent(e.path)}"\r\nContent-Type: ${type}\r\n`
    if (e.abspath != null) head += `Abspath-Encoded: ${encodeURIComponent(e.abspath)}\r\n`
    yield Buffer.from(head + '\r\n')
    if (e.type === 'symlink') yield Buffer.from(e.target ?? '')
    else if (e.content != null) for await (const c of e.content) yield c
    yield Buffer.from('\r\n')
  }
  yield Buffer.from(`--${boundary}--\r\n`)
}

interface Target { kind: 'http', url: string, socketPath?: string, auth?: string }

async function findApi (apiOpt: string | undefined, repoPath: string): Promise<string | undefined> {
  if (apiOpt != null && apiOpt !== '') return apiOpt
  const addr = await readApiFile(repoPath)
  if (addr == null) return undefined
  // Kubo: an api file while no daemon holds the repo lock was left by a crash: it is removed and the
  // command runs in-process (a daemon that holds the lock but does not answer is "cannot connect")
  if (!await repoLocked(repoPath)) {
    await fs.rm(path.join(repoPath, 'api'), { force: true }).catch(() => {})
    return undefined
  }
  return addr
}

function apiTarget (addr: string, auth?: string): Target {
  if (/^https?:\/\//.test(addr)) return { kind: 'http', url: addr.replace(/\/+$/, ''), auth }
  const t = listenTarget(addr)
  if ('path' in t) return { kind: 'http', url: 'http://unix', socketPath: t.path, auth }
  const host = t.host.includes(':') ? `[${t.host}]` : t.host
  const scheme = addr.includes('/https') || addr.includes('/tls/http') ? 'https' : 'http'
  return { kind: 'http', url: `${scheme}://${host}:${t.port}`, auth }
}

interface HttpResult { status: number, headers: http.IncomingHttpHeaders, body: AsyncIterable<Buffer>, trailers: () => NodeJS.Dict<string> }

async function post (target: Target, cmdPath: string[], query: URLSearchParams, body?: { stream: AsyncIterable<Uint8Array>, boundary: string }): Promise<HttpResult> {
  const url = new URL(`${target.url}/api/v0/${cmdPath.join('/')}?${query.toString()}`)
  const headers: Record<string, string> = { 'User-Agent': 'tsipfs-cli' }
  if (target.auth != null) headers.Authorization = target.auth
  if (body != null) headers['Content-Type'] = `multipart/form-data; boundary=${body.boundary}`
  // node:http is not in Node's start-up snapshot: loaded only by commands that talk to a daemon
  const { request } = await import('node:http')
  return await new Promise((resolve, reject) => {
    const req = request({
      method: 'POST',
      hostname: target.socketPath != null ? undefined : url.hostname.replace(/^\[|\]$/g, ''),
      port: target.socketPath != null ? undefined : url.port,
      socketPath: target.socketPath,
      path: url.pathname + url.search,
      headers
    }, (res) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: res, trailers: () => res.trailers })
    })
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') {
        reject(new RpcError('cannot connect to the api. Is the daemon running? To run as a standalone CLI command remove the api file in `$IPFS_PATH/api`'))
      } else reject(err)
    })
    if (body == null) { req.end(); return }
    void (async () => {
      try {
        for await (const chunk of body.stream) {
          if (!req.write(chunk)) await new Promise(resolve => req.once('drain', resolve))
        }
        req.end()
      } catch (err) { req.destroy(err as Error) }
    })()
  })
}

async function * ndjsonValues (body: AsyncIterable<Buffer>): AsyncGenerator<unknown> {
  let rest = ''
  for await (const chunk of body) {
    rest += chunk.toString('utf8')
    let nl: number
    while ((nl = rest.indexOf('\n')) >= 0) {
      const line = rest.slice(0, nl).trim()
      rest = rest.slice(nl + 1)
      if (line !== '') yield JSON.parse(line)
    }
  }
  if (rest.trim() !== '') yield JSON.parse(rest)
}

/** Decode an RPC response into an outcome (as http/client.go does). */
async function outcomeOf (res: HttpResult, kind: 'single' | 'ndjson' | 'bytes'): Promise<Outcome> {
  if (res.status !== 200) {
    const chunks: Buffer[] = []
    for await (const c of res.body) chunks.push(c)
    const text = Buffer.concat(chunks).toString('utf8')
    if ((res.headers['content-type'] ?? '').startsWith('application/json')) {
      try {
        const body = JSON.parse(text) as { Message: string, Code?: number }
        throw body.Code === ErrorCode.Client ? new InvalidArgumentError(body.Message) : new RpcError(body.Message)
      } catch (err) { if (err instanceof RpcError) throw err }
    }
    throw new RpcError(res.status === 404 ? 'command not found' : text.replace(/\n$/, ''))
  }
  const checkTrailer = (): void => {
    const e = res.trailers()['x-stream-error']
    // the message's UTF-8 bytes (Node reads a trailer as Latin-1)
    if (e != null && e !== '') throw new RpcError(Buffer.from(e, 'latin1').toString('utf8'))
  }
  if (res.headers['x-stream-output'] === '1' || kind === 'bytes') {
    const len = res.headers['x-content-length']
    return {
      kind: 'bytes',
      length: len != null ? Number(len) : undefined,
      body: (async function * () { for await (const c of res.body) yield c; checkTrailer() })()
    }
  }
  if (res.headers['x-chunked-output'] === '1' || kind === 'ndjson') {
    return { kind: 'ndjson', items: (async function * () { yield * ndjsonValues(res.body); checkTrailer() })() }
  }
  const chunks: Buffer[] = []
  for await (const c of res.body) chunks.push(c)
  checkTrailer()
  const text = Buffer.concat(chunks).toString('utf8')
  return { kind: 'single', value: text.trim() === '' ? undefined : JSON.parse(text) }
}

function write (stream: NodeJS.WriteStream, data: string | Uint8Array): Promise<void> {
  return new Promise(resolve => { if (stream.write(data)) resolve(); else stream.once('drain', () => resolve()) })
}

export function renderValue (command: CommandSpec, value: unknown, call: TextCall, enc: string): string {
  // go-ipfs-cmds cli/run.go: text asked of a command without a text encoder gives JSON
  if (enc === 'json' || command.text == null || command.textGeneric === true) return goJson(command.cliJson != null ? command.cliJson(value as never) : value)
  return command.text(value as never, call as never)
}

async function render (command: CommandSpec, outcome: Outcome, call: TextCall, enc: string, inputSize?: number): Promise<void> {
  if (command.cliRender != null && enc !== 'json') {
    await command.cliRender(outcome, call as never, { stdout: process.stdout, stderr: process.stderr, isTTY: process.stderr.isTTY === true, cwd: process.cwd(), inputSize })
    return
  }
  switch (outcome.kind) {
    case 'single':
      if (outcome.value !== undefined) await write(process.stdout, renderValue(command, outcome.value, call, enc))
      return
    case 'ndjson':
      for await (const v of outcome.items) {
        const out = command.textStream?.(v) === 'stderr' && enc !== 'json' ? process.stderr : process.stdout
        await write(out, renderValue(command, v, call, enc))
      }
      return
    case 'bytes':
      for await (const c of outcome.body) await write(process.stdout, c)
  }
}

/** Entry: returns the exit code. */
/** --repo-dir from argv, before the tree is known (it decides which plugins exist). */
function repoDirOf (argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--') break
    if (a.startsWith('--repo-dir=')) return a.slice('--repo-dir='.length)
    if (a === '--repo-dir') return argv[i + 1]
  }
  return undefined
}

/**
 * Die of SIGPIPE, as a Go program (Kubo) does when it writes into a closed pipe: the shell sees 141 and
 * prints nothing (`tsipfs refs local | head -1`). Node ignores SIGPIPE; a listener added and removed puts
 * the default action back.
 */
export function exitBySigpipe (): void {
  process.on('SIGPIPE', () => {})
  process.removeAllListeners('SIGPIPE')
  process.kill(process.pid, 'SIGPIPE')
  setTimeout(() => process.exit(141), 1000).unref()
}

function quietOnClosedPipe (stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') exitBySigpipe()
    else throw err
  })
}

export async function main (argv: string[]): Promise<number> {
  quietOnClosedPipe(process.stdout)
  quietOnClosedPipe(process.stderr)
  const repoPath = path.resolve(repoDirOf(argv) ?? defaultRepoPath())
  // the CLI's tree: built-in plugins not disabled in the repo config, plus third-party ones it names
  let plugins: Plugin[] = await manifestPlugins()
  if (await isInitialized(repoPath)) {
    try {
      plugins = await enabledPlugins(await loadConfigFile(path.join(repoPath, 'config')), repoPath, plugins)
    } catch { /* the command itself reports a broken repo */ }
  }
  const registry = new Registry()
  for (const p of plugins) registry.add(p)
  let parsed: ParsedArgv
  try {
    parsed = parseArgv(registry, argv)
  } catch (err) {
    process.stderr.write(`Error: ${errorMessage(err)}\n`)
    return 1
  }
  let command = parsed.node.command
  if (parsed.help != null || command == null) {
    if (command == null && parsed.positionals.length > 0) {
      // go-ipfs-cmds: an unknown name is an "Unknown Command" at the root only; below it, arguments to a group
      process.stderr.write(parsed.path.length === 0
        ? `Error: Unknown Command "${parsed.positionals[0]}"\n\n`
        : `Error: expected 0 argument(s), got ${parsed.positionals.length}\n\n`)
      process.stderr.write(helpText(registry, parsed.node, 'short'))
      return 1
    }
    process.stdout.write(helpText(registry, parsed.node, parsed.help ?? 'short'))
    return 0
  }
  try {
    command = (await registry.load(command.path)) ?? command
    await run(registry, parsed, command, repoPath)
    return 0
  } catch (err) {
    const message = errorMessage(err)
    process.stderr.write(`Error: ${message}\n`)
    // go-ipfs-cmds cli/run.go: a wrong argument count is a user error, answered with the short help
    if (err instanceof RequestParseError && ARGUMENT_ERROR.test(message)) process.stderr.write('\n' + helpText(registry, parsed.node, 'short'))
    // and a command's client error (Code 1) with printMetaHelp
    else if (!(err instanceof RequestParseError) && (err as RpcError).code === ErrorCode.Client) process.stderr.write(`Use '${['tsipfs', ...parsed.path].join(' ')} --help' for information about this command\n`)
    return 1
  }
}

/** The text-encoder view of a prepared call (registry/execute.ts textCall, without loading execute). */
function textCallOf (prepared: Prepared): TextCall {
  let options: TextCall['options'] | undefined
  return {
    path: prepared.command.path,
    args: prepared.args,
    get options () { return (options ??= camelize(prepared.values) as TextCall['options']) }
  }
}

/**
 * What a command that needs no repo runs against (Kubo's doesNotUseRepo): the CLI's tree, no stores and
 * no container; the logger and the CID encoder load on first use.
 */
function lightDeps (registry: Registry, signal: AbortSignal, options: Record<string, unknown>, more: Record<string, () => unknown> = {}): RequestCradle {
  let logging: Logging | undefined
  const getLogging = (): Logging => (logging ??= (require('../core/logger/index.js') as typeof import('../core/logger/index.js')).createLogging())
  const values: Record<string, () => unknown> = {
    repoPath: () => '',
    registry: () => registry,
    signal: () => signal,
    logging: getLogging,
    logger: () => getLogging().root,
    log: () => getLogging().root,
    cidEncoder: () => (require('../core/cid-encoder.js') as typeof import('../core/cid-encoder.js')).createCidEncoder({
      cidBase: options['cid-base'] as string | undefined,
      upgradeCidv0InOutput: options['upgrade-cidv0-in-output'] as boolean | undefined
    }),
    ...more
  }
  return new Proxy({} as RequestCradle, {
    get: (_, key) => {
      const make = typeof key === 'string' ? values[key] : undefined
      if (make == null) throw new RpcError(`this command runs without a repo and cannot use "${String(key)}"`)
      return make()
    }
  })
}

async function run (registry: Registry, parsed: ParsedArgv, command: CommandSpec, repoPath: string): Promise<void> {
  parsed.raw.set('repo-dir', [repoPath])
  const enc = parsed.raw.get('encoding')?.[0] ?? parsed.raw.get('enc')?.[0] ?? 'text'
  // split positionals between string arguments and file paths
  const defs = command.args ?? []
  const fileDef = defs.find(d => d.kind === 'file')
  const stringDefs = defs.filter(d => d.kind === 'string')
  let stringVals = parsed.positionals
  let filePaths: string[] = []
  if (fileDef != null) {
    const n = stringDefs.length
    stringVals = parsed.positionals.slice(0, n)
    filePaths = parsed.positionals.slice(n)
  }
  let files: FileEntry[] | undefined
  if (fileDef != null) {
    const table = registry.optionTable(command.path)
    const flag = (name: string): boolean => {
      const v = [...parsed.raw.entries()].find(([k]) => table.get(k)?.canonical === name)?.[1]?.[0]
      return v != null && ['true', '1', 't', ''].includes(v.toLowerCase())
    }
    const value = (name: string): string | undefined => [...parsed.raw.entries()].find(([k]) => table.get(k)?.canonical === name)?.[1]?.[0]
    const values = (name: string): string[] => [...parsed.raw.entries()].filter(([k]) => table.get(k)?.canonical === name).flatMap(([, v]) => v)
    const stdinName = value('stdin-name') ?? ''
    if (filePaths.length > 0) {
      files = await collectFiles(filePaths, {
        recursive: flag('recursive'),
        hidden: flag('hidden'),
        ignore: values('ignore'),
        ignoreRulesPath: value('ignore-rules-path'),
        derefArgs: flag('dereference-args'),
        derefSymlinks: flag('dereference-symlinks'),
        stdinName,
        stdin: stdinStream,
        argName: fileDef.name,
        argRecursive: fileDef.recursive === true
      })
    } else if (fileDef.stdin === true && !process.stdin.isTTY) files = [{ path: stdinName, type: 'file', content: stdinStream(), abspath: '/dev/stdin' }]
  }
  if (command.cliDefaults != null) {
    // Kubo's PreRun: options the CLI fills in before sending
    const table = registry.optionTable(command.path)
    const given = (name: string): string | undefined => [...parsed.raw.entries()].find(([k]) => table.get(k)?.canonical === name)?.[1]?.[0]
    for (const [k, v] of Object.entries(command.cliDefaults(given, { isTTY: process.stderr.isTTY === true }))) {
      if (given(k) === undefined) parsed.raw.set(k, [v])
    }
  }
  // Kubo's DelimitedStringsOption: the CLI splits each value (`--status=queued,pinned`); over HTTP a value is one item
  const optionTable = registry.optionTable(command.path)
  for (const [k, list] of parsed.raw) {
    const delimiter = optionTable.get(k)?.spec.delimiter
    if (delimiter != null) parsed.raw.set(k, list.flatMap(v => v.split(delimiter)))
  }
  let stdinLines: string[] | undefined
  const last = defs[defs.length - 1]
  if (last?.kind === 'string' && last.stdin === true && stringVals.length === 0 && !process.stdin.isTTY) {
    const text = (await readStdin()).toString('utf8')
    stdinLines = text === '' ? [] : text.split('\n').map(l => l.replace(/\r$/, '')).filter((l, i, a) => !(i === a.length - 1 && l === ''))
  }
  if (command.cliArgs != null) stringVals = command.cliArgs(stringVals)
  const input = { args: stringVals, query: parsed.raw, strictArgs: true, stdin: stdinLines, files: files != null ? (async function * () { yield * files })() : undefined }

  const httpOk = registry.httpAllowed(command.path) && command.cliOnly !== true
  const local = !httpOk || registry.noRepo(command.path)
  const api = local ? undefined : await findApi(parsed.raw.get('api')?.[0], repoPath)
  if (api != null) {
    const prepared = registry.prepare(command.path, input) // validates before sending
    const query = new URLSearchParams()
    for (const a of prepared.args) query.append('arg', a)
    for (const [k, list] of parsed.raw) {
      if (k === 'api' || k === 'repo-dir' || k === 'encoding' || k === 'enc') continue
      for (const v of list) query.append(k, v)
    }
    query.set('encoding', 'json')
    query.set('stream-channels', 'true')
    const authSecret = parsed.raw.get('api-auth')?.[0]
    const target = apiTarget(api, authSecret != null ? authHeaderFor(authSecret) : undefined)
    const boundary = `------------------------${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`
    let body: { stream: AsyncIterable<Uint8Array>, boundary: string } | undefined
    if (files != null) body = { stream: multipartBody(files, boundary), boundary }
    else if (stdinLines != null && prepared.args.length === 0) {
      body = { stream: multipartBody([{ path: 'stdin', type: 'file', content: (async function * () { yield Buffer.from(stdinLines.join('\n')) })() }], boundary), boundary }
    }
    const res = await post(target, command.path as string[], query, body)
    const outcome = await outcomeOf(res, prepared.output)
    await render(command, outcome, textCallOf(prepared), enc, totalSize(files))
    return
  }
  if (command.cli === false) throw new NotOnlineError("This command must be run in online mode. Try running 'ipfs daemon' first.")
  const useRepo = !registry.noRepo(command.path)
  if (useRepo && !await isInitialized(repoPath)) throw new RpcError(`no IPFS repo found in ${repoPath}.\nplease run: 'ipfs init'`)
  if (useRepo && !httpOk && command.repoAccess !== 'readonly' && command.cliOnly !== true && await repoLocked(repoPath)) {
    throw new RpcError('ipfs daemon is running. please stop it to run this command')
  }
  const controller = new AbortController()
  if (!useRepo) {
    // no node: the command runs against the CLI's own tree
    const { runPrepared } = await import('../registry/run.js')
    const prepared = registry.prepare(command.path, input)
    const deps = lightDeps(registry, controller.signal, prepared.values)
    const outcome = await runPrepared(prepared, deps, { signal: controller.signal, log: () => deps.log })
    await render(command, outcome, textCallOf(prepared), enc, totalSize(files))
    return
  }
  if (command.repoAccess === 'config') {
    // the config commands read and write only the config file (as the node would: read, then the lock)
    const { runPrepared } = await import('../registry/run.js')
    const config = createConfigStore(await readRepoConfig(repoPath), configPath(repoPath))
    const lock = await acquireLock(repoPath)
    try {
      const prepared = registry.prepare(command.path, input)
      const deps = lightDeps(registry, controller.signal, prepared.values, { repoPath: () => repoPath, config: () => config })
      const outcome = await runPrepared(prepared, deps, { signal: controller.signal, log: () => deps.log })
      await render(command, outcome, textCallOf(prepared), enc, totalSize(files))
    } finally {
      await lock.release()
    }
    return
  }
  const { execute } = await import('../registry/execute.js')
  // the node gets the CLI's plugins: declarations, except plugins that register services (loaded)
  const { createNode } = await import('./node.js')
  const { nodePlugins } = await import('../registry/manifest.js')
  const node = await createNode({ repoPath, online: false, readOnly: command.repoAccess === 'readonly', plugins: await nodePlugins(registry.listPlugins()), noExternalPlugins: true })
  try {
    await node.start()
    await node.registry.load(command.path)
    const prepared = node.registry.prepare(command.path, input)
    const outcome = await execute(prepared, node.container, { signal: controller.signal })
    await render(command, outcome, textCallOf(prepared), enc, totalSize(files))
  } finally {
    await node.stop()
  }
}
