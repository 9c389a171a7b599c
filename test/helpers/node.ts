// An in-memory node for plugin unit tests: real stores, no HTTP, no stubs of core services.
import type { InvokeInput } from '../../registry/registry.js'
import { createNode, type NodeInit, type TsipfsNode } from '../../server/node.js'

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

/** Async iterable of one file part, for commands with file arguments. */
export async function * filesOf (...entries: Array<{ path?: string, content: string | Uint8Array }>): AsyncGenerator<import('../../registry/types.js').FileEntry> {
  for (const e of entries) {
    const bytes = typeof e.content === 'string' ? new TextEncoder().encode(e.content) : e.content
    yield { path: e.path ?? '', type: 'file', content: (async function * () { yield bytes })() }
  }
}
