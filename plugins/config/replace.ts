// ipfs config replace <file> (kubo core/commands/config.go replaceConfig).
import type { Json, KuboConfig } from '../../core/config/index.js'
import { mapGetKV } from '../../core/config/index.js'
import { normalizeConfig, setRepoConfig } from '../../core/config/schema.js'
import { RpcError } from '../../core/errors.js'
import { defineCommand } from '../../registry/define.js'
import type { FileEntry } from '../../registry/types.js'
import { goJsonDecodeFirst } from './gojson.js'
import { PRIVKEY_SELECTOR, nodePeerId } from './repo.js'
import { setOwn } from '../../core/util/own.js'

type Obj = { [k: string]: Json }
const isObject = (v: unknown): v is Obj => v != null && typeof v === 'object' && !Array.isArray(v)
const obj = (v: Json | undefined): Obj => isObject(v) ? v : {}

async function firstFile (files: AsyncIterable<FileEntry> | undefined): Promise<string> {
  if (files == null) throw new RpcError('expected a file argument')
  for await (const f of files) {
    if (f.type !== 'file' || f.content == null) throw new RpcError('expected a file argument')
    const chunks: Uint8Array[] = []
    for await (const c of f.content) chunks.push(c)
    return Buffer.concat(chunks).toString('utf8')
  }
  throw new RpcError('expected a file argument')
}

export const configReplace = defineCommand({
  path: ['config', 'replace'],
  repoAccess: 'config',
  description: 'Replace the config with <file>.',
  help: "Make sure to back up the config file first if necessary, as this operation\ncan't be undone.\n\nThe private key cannot be set over the Kubo RPC API. 'ipfs config replace'\nkeeps the existing Identity.PrivKey and ignores that field in <file>. It\nthen re-derives Identity.PeerID from the stored key, so a different PeerID\nin <file> is overwritten with the one derived from the key on disk.\n\nTo change the node's identity, stop the daemon and run 'ipfs key rotate'.",
  args: [{ name: 'file', kind: 'file', required: true, description: 'The file to use as the new config.' }],
  // Kubo emits nothing: 200 with an empty body
  output: 'ndjson',
  async run ({ files, deps: { config } }): Promise<undefined> {
    const text = await firstFile(files)
    let next: KuboConfig
    try {
      next = normalizeConfig(goJsonDecodeFirst(text))
    } catch {
      throw new RpcError('failed to decode file as config')
    }

    const identity = obj(next.Identity)
    if (typeof identity.PrivKey === 'string' && identity.PrivKey !== '') throw new RpcError('setting private key with API is not supported')
    const current = config.get()
    let pk: Json
    try { pk = mapGetKV(current, PRIVKEY_SELECTOR) } catch { throw new RpcError('failed to get PrivKey') }
    if (typeof pk !== 'string') throw new RpcError('private key in config was not a string')
    let id: string
    try { id = (await nodePeerId(current)).text } catch (err) { throw new RpcError((err as Error).message) }
    next.Identity = { PeerID: id, PrivKey: pk }

    // remote pinning services: their API details are secrets that stay as they are
    const pinning = obj(next.Pinning)
    const newServices = obj(pinning.RemoteServices)
    let oldServices: Obj = {}
    let stored: Json = null
    try { stored = mapGetKV(current, 'Pinning.RemoteServices') } catch {}
    if (isObject(stored)) {
      try {
        oldServices = obj(obj(normalizeConfig({ Pinning: { RemoteServices: stored } }).Pinning).RemoteServices)
      } catch (err) {
        throw new RpcError(`failed to load remote pinning services info (${(err as Error).message})`)
      }
    }
    if (Object.keys(newServices).length !== Object.keys(oldServices).length) {
      throw new RpcError("cannot add or remove remote pinning services with 'config replace'")
    }
    for (const [name, oldSvc] of Object.entries(oldServices)) {
      if (!Object.hasOwn(newServices, name)) throw new RpcError("cannot add or remove remote pinning services with 'config replace'")
      const newSvc = obj(newServices[name])
      const newApi = obj(newSvc.API)
      const oldApi = obj(obj(oldSvc).API)
      const endpoint = typeof newApi.Endpoint === 'string' ? newApi.Endpoint : ''
      if ((typeof newApi.Key === 'string' && newApi.Key !== '') || (endpoint !== '' && endpoint !== oldApi.Endpoint)) {
        throw new RpcError('cannot change remote pinning services api info with `config replace`')
      }
      setOwn(newServices, name, { ...newSvc, API: oldApi })
    }

    await setRepoConfig(config, next)
    return undefined
  }
})
