// tsipfs init: write a new repo (Kubo cmd/ipfs/kubo/init.go).
import { promises as fs } from 'node:fs'
import { defineCommand } from '../../registry/define.js'
import { defaultRepoPath, initRepo } from '../../core/repo/index.js'
import { createCoreContainer } from '../../core/container.js'
import { EMPTY_DIR_CID } from '../../core/mfs/index.js'
import { Registry } from '../../registry/registry.js'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import type { KuboConfig } from '../../core/config/index.js'

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
    const algorithm = options.algorithm.toLowerCase()
    const label = algorithm === 'rsa' ? `${options.bits ?? 2048}-bit RSA` : algorithm.toUpperCase()
    const { key } = await initRepo(repoPath, { algorithm, bits: options.bits, profile: options.profile, config })
    await fs.access(repoPath)
    yield { Message: `generating ${label} keypair...done\n` }
    yield { Message: `peer identity: ${peerIdFromPrivateKey(key).toString()}\n` }
    yield { Message: `initializing IPFS node at ${repoPath}\n` }
    await initializeIpnsKeyspace(repoPath)
  },
  text: (out: InitOutput) => out.Message
})

/**
 * Kubo's init, after writing the repo (initializeIpnsKeyspace): the node's own IPNS name points at the empty
 * directory, a record kept in the local datastore only. (Kubo 0.40 adds no help files: --empty-repo is
 * true by default and the only choice.)
 */
async function initializeIpnsKeyspace (repoPath: string): Promise<void> {
  const core = await createCoreContainer({ repoPath, registry: new Registry(), online: false })
  try {
    const { nameSystem, keystore } = core.container.cradle
    await nameSystem.publish(keystore.self(), `/ipfs/${EMPTY_DIR_CID.toString()}`, { network: false })
  } finally {
    await core.close()
  }
}
