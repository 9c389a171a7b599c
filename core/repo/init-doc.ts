// `init --empty-repo=false`: the help files Kubo's init adds and pins (assets/init-doc), here with tsipfs's own
// text. The directory is imported with Kubo's default add settings and pinned recursively.
import type { CID } from 'multiformats/cid'
import type { Blockstore } from 'interface-blockstore'
import { importFiles, resolveImportSettings, type ImportEntry } from '../unixfs/importer.js'
import type { Pins } from '../pins/index.js'

const DOCS: Record<string, string> = {
  readme: `Hello and Welcome to tsipfs!

tsipfs is an IPFS node in TypeScript whose daemon speaks Kubo's RPC API, so the tools
written for Kubo (kubo-rpc-client, Kubo's CLI with --api, the IPFS Web UI, curl) work with it.

If you're seeing this, this repo was initialised with 'init --empty-repo=false' and these
help files were added and pinned. Look around:

  tsipfs cat /ipfs/<this directory>/about
  tsipfs cat /ipfs/<this directory>/quick-start
  tsipfs cat /ipfs/<this directory>/help
  tsipfs cat /ipfs/<this directory>/security-notes
  tsipfs cat /ipfs/<this directory>/contact
`,
  about: `tsipfs: an IPFS node in TypeScript

IPFS addresses content by what it is (a CID, a hash of the bytes) rather than by where it
is. tsipfs stores blocks in Kubo's repo layout, exchanges them with other peers over libp2p
(bitswap, the DHT), and serves them through Kubo's RPC API and a read-only HTTP gateway.
`,
  help: `Getting help

Every command has its help:  tsipfs <command> --help
The list of commands:        tsipfs commands
The RPC API is Kubo's:       https://docs.ipfs.tech/reference/kubo/rpc/
`,
  'quick-start': `Quick start

  tsipfs daemon &                       # run the node (API 127.0.0.1:5001, gateway 127.0.0.1:8080)
  echo hello | tsipfs add               # add a file: prints its CID
  tsipfs cat <cid>                      # read it back
  tsipfs pin ls                         # what this node keeps
  tsipfs files mkdir /docs              # a mutable file system (MFS) on top
  tsipfs id                             # this node's peer ID and addresses
`,
  'security-notes': `Security notes

- Content you add is public to anyone who asks for its CID while your node is online.
- The RPC API (Addresses.API) controls the whole node: keep it on loopback, or set
  API.Authorizations before exposing it.
- Your private keys live in the config file and keystore/ of the repo: back them up, never share them.
`,
  contact: `Contact

tsipfs follows Kubo's RPC API; IPFS community help: https://discuss.ipfs.tech
`
}

/** Add the help files as one directory, pin it, return its CID. */
export async function addInitDocs (blockstore: Blockstore, pins: Pins): Promise<CID> {
  const encoder = new TextEncoder()
  async function * entries (): AsyncGenerator<ImportEntry> {
    for (const [name, text] of Object.entries(DOCS)) {
      yield { path: `init-doc/${name}`, type: 'file', content: (async function * () { yield encoder.encode(text) })() }
    }
  }
  let root: CID | undefined
  const sink = { put: async (cid: CID, bytes: Uint8Array) => { await blockstore.put(cid, bytes) } }
  for await (const node of importFiles(entries(), sink, resolveImportSettings())) {
    if (node.path === 'init-doc') root = node.cid
  }
  if (root == null) throw new Error('init-doc: no root directory')
  await pins.pinRecursive(root)
  return root
}
