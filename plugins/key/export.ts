// ipfs key export: write a stored key to a file (NoRemote; the CLI runs it in-process).
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { privateKeyToProtobuf } from '@libp2p/crypto/keys'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { SELF, tryGet } from './common.js'
import { pemEncode, privateKeyToPkcs8 } from './keys.js'
import { LIBP2P_FORMAT, PEM_FORMAT } from './import.js'

/** Kubo's PostRun default: `<name>.key` / `<name>.pem` in the working directory (base name only). */
function defaultOutput (name: string, format: string): string {
  const ext = format === PEM_FORMAT ? 'pem' : format === LIBP2P_FORMAT ? 'key' : ''
  const trimmed = `${name}.${ext}`.replace(/\/+$/, '')
  const base = trimmed.slice(trimmed.lastIndexOf('/') + 1)
  return base === '' ? '.' : path.normalize(base)
}

export const keyExport = defineCommand({
  path: ['key', 'export'],
  description: 'Export a keypair',
  help: "Exports a named libp2p key to disk.\n\nBy default, the output will be stored at './<key-name>.key', but an alternate\npath can be specified with '--output=<path>' or '-o=<path>'.\n\nIt is possible to export a private key to interoperable PEM PKCS8 format by explicitly\npassing '--format=pem-pkcs8-cleartext'.",
  http: false,
  repoAccess: 'readonly',
  args: [{ name: 'name', kind: 'string', required: true, stdin: true, description: 'name of key to export' }],
  options: {
    output: { type: 'string', aliases: ['o'], description: 'The path where the output should be stored.' },
    format: { type: 'string', aliases: ['f'], default: LIBP2P_FORMAT, description: 'The format of the exported private key, libp2p-protobuf-cleartext or pem-pkcs8-cleartext.' }
  },
  // Kubo prints nothing: the key goes to the file only
  output: 'ndjson',
  async run ({ args, options, deps: { keystore } }): Promise<undefined> {
    const name = args[0]
    if (name === SELF) throw new RpcError("cannot export key with name 'self'")
    const key = await tryGet(keystore, name)
    if (key == null) throw new RpcError(`key with name '${name}' doesn't exist`)
    let data: Uint8Array | string
    switch (options.format) {
      case PEM_FORMAT: data = pemEncode('PRIVATE KEY', privateKeyToPkcs8(key)); break
      case LIBP2P_FORMAT: data = privateKeyToProtobuf(key); break
      default: throw new RpcError(`unrecognized export format: ${options.format}`)
    }
    const out = options.output != null && options.output !== '' ? options.output : defaultOutput(name, options.format)
    // owner-only permissions: this is private key material
    await fs.writeFile(out, data, { mode: 0o600 })
    return undefined
  }
})
