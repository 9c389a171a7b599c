// tsipfs init: write a new repo (Kubo cmd/ipfs/kubo/init.go).
import { promises as fs } from 'node:fs'
import { defineCommand } from '../../registry/define.js'
import { defaultRepoPath, generateIdentity, initRepo } from '../../core/repo/index.js'
import { addInitDocs } from '../../core/repo/init-doc.js'
import { createCoreContainer } from '../../core/container.js'
import { EMPTY_DIR_CID } from '../../core/mfs/index.js'
import { pinEmptyDir } from '../../core/pins/index.js'
import { Registry } from '../../registry/registry.js'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import type { KuboConfig } from '../../core/config/index.js'
import type { PrivateKey } from '@libp2p/interface'

export interface InitOutput { Message: string }

export const cliInit = defineCommand({
  path: ['init'],
  description: 'Initializes ipfs config file.',
  help: 'Initializes ipfs configuration files and generates a new keypair.',
  cliOnly: true,
  http: false,
  noRepo: true,
  args: [{ name: 'default-config', kind: 'file', stdin: true, description: 'Initialize with the given configuration.' }],
  options: {
    algorithm: { type: 'string', aliases: ['a'], default: 'ed25519', description: 'Cryptographic algorithm to use for key generation.' },
    bits: { type: 'int', aliases: ['b'], description: 'Number of bits to use in the generated RSA private key.' },
    'empty-repo': { type: 'bool', aliases: ['e'], default: true, description: "Don't add and pin help files to the local storage." },
    profile: { type: 'string', aliases: ['p'], description: "Apply profile settings to config. Multiple profiles can be separated by ','" }
  },
  output: 'ndjson',
  async * run ({ options, files }) {
    const repoPath = options.repoDir ?? defaultRepoPath()
    let config: KuboConfig | undefined
    if (files != null) {
      for await (const f of files) {
        if (f.content == null) continue
        const parts: Uint8Array[] = []
        for await (const c of f.content) parts.push(c)
        const text = Buffer.concat(parts).toString('utf8').trim()
        if (text !== '') config = JSON.parse(text) as KuboConfig
      }
    }
    yield * initNode(repoPath, { algorithm: options.algorithm, bits: options.bits, profile: options.profile, config, docs: options.emptyRepo === false })
  },
  text: (out: InitOutput) => out.Message
})

export interface InitNodeOptions {
  algorithm?: string
  bits?: number
  profile?: string
  /** a config to use as it is, identity included (no key is generated) */
  config?: KuboConfig
  /** add and pin the help files (Kubo's init without --empty-repo; `daemon --init` always) */
  docs?: boolean
}

/** Kubo's doInit with its identity first: `init` and `daemon --init` print the same lines. */
export async function * initNode (repoPath: string, o: InitNodeOptions): AsyncGenerator<InitOutput> {
  let key: PrivateKey | undefined
  if (o.config == null) {
    // CreateIdentity: RSA announces itself before checking the size; the repo checks come after
    const algorithm = (o.algorithm ?? 'ed25519').toLowerCase()
    if (algorithm === 'rsa') yield { Message: `generating ${o.bits ?? 2048}-bit RSA keypair...` }
    key = await generateIdentity(algorithm, o.bits)
    if (algorithm !== 'rsa') yield { Message: `generating ${algorithm.toUpperCase()} keypair...` }
    yield { Message: 'done\n' }
    yield { Message: `peer identity: ${peerIdFromPrivateKey(key).toString()}\n` }
  }
  yield { Message: `initializing IPFS node at ${repoPath}\n` }
  // the stores are opened once, below, where the empty directory is pinned
  await initRepo(repoPath, { key, profile: o.profile, config: o.config, seed: false })
  await fs.access(repoPath)
  const docs = await initializeIpnsKeyspace(repoPath, o.docs === true)
  if (docs != null) yield { Message: `to get started, enter:\n\n\tipfs cat /ipfs/${docs}/readme\n\n` }
}

/**
 * Kubo's init, after writing the repo: the empty directory pinned (pinEmptyDir), with --empty-repo=false the help files are added and pinned
 * (addDefaultAssets; their CID is returned), then initializeIpnsKeyspace: the node's own IPNS name points at the
 * empty directory, a record kept in the local datastore only.
 */
async function initializeIpnsKeyspace (repoPath: string, docs: boolean): Promise<string | undefined> {
  const core = await createCoreContainer({ repoPath, registry: new Registry(), online: false })
  try {
    const { nameSystem, keystore, blockstore, pins } = core.container.cradle
    await pinEmptyDir(blockstore, pins)
    const root = docs ? (await addInitDocs(blockstore, pins)).toString() : undefined
    await nameSystem.publish(keystore.self(), `/ipfs/${EMPTY_DIR_CID.toString()}`, { network: false })
    return root
  } finally {
    await core.close()
  }
}
