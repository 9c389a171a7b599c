// An in-memory node for plugin unit tests: real stores, no HTTP, no stubs of core services.
import type { InvokeInput } from '../../registry/registry.js'
import { textCall } from '../../registry/execute.js'
import type { Libp2p } from '@libp2p/interface'
import { createNode, type NodeInit, type TsipfsNode } from '../../server/node.js'
import { defaultConfig } from '../../core/config/defaults.js'
import { generateIdentity, identityOf } from '../../core/repo/index.js'
import { waitFor } from './wait.js'

export interface TestNode extends TsipfsNode {
  /** run a command through the registry: a value, the array of streamed values, or a Buffer */
  invoke: (path: string | readonly string[], input?: InvokeInput) => Promise<any>
}

export async function createTestNode (init: Partial<NodeInit> = {}): Promise<TestNode> {
  const node = await createNode({ online: false, noExternalPlugins: true, ...init })
  await node.start()
  return {
    ...node,
    invoke: async (path, input = {}) => await node.registry.invoke(typeof path === 'string' ? path.split('/') : path, input, node.container)
  }
}

/**
 * An online node on a loopback TCP port with a new identity, no bootstrap peers and loopback addresses allowed in
 * the LAN DHT; `configure` edits the config before the node starts.
 */
export async function createOnlineTestNode (init: Partial<NodeInit> = {}, configure: (config: Record<string, any>) => void = () => {}): Promise<TestNode> {
  const config: Record<string, any> = defaultConfig(identityOf(await generateIdentity()))
  config.Addresses.Swarm = ['/ip4/127.0.0.1/tcp/0']
  config.Bootstrap = []
  config.Routing = { ...config.Routing, LoopbackAddressesOnLanDHT: true }
  configure(config)
  return await createTestNode({ ...init, online: true, config })
}

export const libp2pOf = (n: TestNode): Libp2p => n.container.cradle.libp2p as Libp2p

/** `from` dials `to`; resolves once identify has run and `from`'s LAN DHT table holds a peer. */
export async function connectOnline (from: TestNode, to: TestNode): Promise<void> {
  await libp2pOf(from).dial(libp2pOf(to).getMultiaddrs()[0])
  await waitFor(() => ((libp2pOf(from).services as Record<string, { routingTable?: { size: number } }>).lanDHT?.routingTable?.size ?? 0) > 0, { what: 'a peer in the LAN DHT table' })
}

/** Async iterable of one file part, for commands with file arguments. */
export async function * filesOf (...entries: Array<{ path?: string, content: string | Uint8Array }>): AsyncGenerator<import('../../registry/types.js').FileEntry> {
  for (const e of entries) {
    const bytes = typeof e.content === 'string' ? new TextEncoder().encode(e.content) : e.content
    yield { path: e.path ?? '', type: 'file', content: (async function * () { yield bytes })() }
  }
}

/** A node for one test: created with `init`, stopped after `fn` whatever happens. */
export async function withTestNode<T> (init: Partial<NodeInit>, fn: (node: TestNode) => Promise<T>): Promise<T> {
  const node = await createTestNode(init)
  try {
    return await fn(node)
  } finally {
    await node.stop()
  }
}

/**
 * Run a command and render its output with the command's text encoder (?encoding=text): every
 * value of an ndjson stream in turn. Fails when the command has no text encoder.
 */
export async function renderText (node: TestNode, path: string, input: InvokeInput = {}): Promise<string> {
  const prepared = node.registry.prepare(path.split('/'), input)
  const value = await node.invoke(path, input)
  const text = prepared.command.text
  if (text == null) throw new Error(`no text encoder for ${path}`)
  const call = textCall(prepared) as never
  return Array.isArray(value) && prepared.output === 'ndjson' ? value.map(v => text(v, call)).join('') : text(value, call)
}
