// ipfs config <key> [<value>] (kubo core/commands/config.go ConfigCmd, repo/fsrepo GetConfigKey/SetConfigKey).
import { RpcError } from '../../core/errors.js'
import { mapGetKV, mapSetKV, type Json, type KuboConfig } from '../../core/config/index.js'
import { checkKey, normalizeConfig, repoConfig, sortKeysDeep } from '../../core/config/schema.js'
import { expandConfigField } from '../../core/config/autoconf.js'
import type { ConfigStore } from '../../core/config/index.js'
import { defineCommand } from '../../registry/define.js'
import { goQuote } from '../../core/go/strings.js'
import { goJsonParse } from './gojson.js'
import type { ConfigField } from './output.js'
import { PINNING_CONCEAL, PRIVKEY_SELECTOR, humanOutput, matchesGlobPrefix, nodePeerId, samePeer } from './repo.js'

const message = (err: unknown): string => err instanceof Error ? err.message : String(err)

/** getConfig: the value at `key` in the stored config. */
function getConfig (store: ConfigStore, key: string): ConfigField {
  try {
    return { Key: key, Value: sortKeysDeep(mapGetKV(store.get(), key)) }
  } catch (err) {
    throw new RpcError(`failed to get config value: ${goQuote(message(err))}`)
  }
}

/** FSRepo.SetConfigKey: key checked against Kubo's struct, private key kept, the result must decode. */
async function setConfigKey (store: ConfigStore, key: string, value: Json): Promise<void> {
  checkKey(key)
  const map: KuboConfig = store.get()
  const pk = mapGetKV(map, PRIVKEY_SELECTOR)
  mapSetKV(map, key, value)
  mapSetKV(map, PRIVKEY_SELECTOR, pk)
  try {
    normalizeConfig(map)
  } catch (err) {
    throw new Error(`failure to decode config: ${message(err)}`)
  }
  await store.replace(sortKeysDeep(map) as KuboConfig)
}

async function setConfig (store: ConfigStore, key: string, value: Json): Promise<ConfigField> {
  try {
    await setConfigKey(store, key, value)
  } catch (err) {
    throw new RpcError(`failed to set config value: ${message(err)} (maybe use --json?)`)
  }
  return getConfig(store, key)
}

export const configConfig = defineCommand({
  path: ['config'],
  repoAccess: 'config',
  description: 'Get and set IPFS config values.',
  help: "'ipfs config' controls configuration variables. It works like 'git config'.\nThe configuration values are stored in a config file inside your IPFS_PATH.",
  args: [
    { name: 'key', kind: 'string', required: true, description: 'The key of the config entry (e.g. "Addresses.API").' },
    { name: 'value', kind: 'string', description: 'The value to set the config entry to.' }
  ],
  options: {
    bool: { type: 'bool', description: 'Set a boolean value.' },
    json: { type: 'bool', description: 'Parse stringified JSON.' },
    'expand-auto': { type: 'bool', description: "Expand 'auto' placeholders to their expanded values from AutoConf service." }
  },
  output: 'single',
  async run ({ args, options, deps: { config } }): Promise<ConfigField> {
    const key = args[0]
    // the private key stays out of the API (temporary fix in Kubo, until keys leave the config)
    if (['identity', 'identity.privkey'].includes(key.toLowerCase())) throw new RpcError('cannot show or change private key through API')
    if (matchesGlobPrefix(key, PINNING_CONCEAL)) throw new RpcError('cannot show or change pinning services credentials')

    if (args.length < 2) {
      const field = getConfig(config, key)
      if (options.expandAuto === true) {
        let full: KuboConfig
        try { full = repoConfig(config) } catch (err) { throw new RpcError(`failed to load config: ${goQuote(message(err))}`) }
        field.Value = expandConfigField(full, key, field.Value)
      }
      return field
    }

    if (options.expandAuto === true) throw new RpcError('--expand-auto can only be used for reading config values, not for setting them')
    const value = args[1]

    // Identity.PeerID follows from the private key: only the node's own ID is accepted, stored in base58
    if (key.toLowerCase() === 'identity.peerid') {
      let candidate = value
      if (options.json === true) {
        try {
          const parsed = JSON.parse(value) as unknown
          if (typeof parsed === 'string') candidate = parsed
        } catch {}
      }
      let id: { text: string, multihash: Uint8Array }
      try { id = await nodePeerId(config.get()) } catch (err) { throw new RpcError(message(err)) }
      if (!samePeer(candidate, id.multihash)) {
        throw new RpcError("cannot set Identity.PeerID to a value that does not match the node's private key; use 'ipfs key rotate' to change the node identity")
      }
      return await setConfig(config, key, id.text)
    }

    if (options.json === true) {
      let parsed: Json
      try { parsed = goJsonParse(value) } catch (err) { throw new RpcError(`failed to unmarshal json. ${message(err)}`) }
      return await setConfig(config, key, parsed)
    }
    if (options.bool === true) return await setConfig(config, key, value === 'true')
    return await setConfig(config, key, value)
  },
  // a set prints nothing; a get prints the value
  text: (out, { args }) => args.length === 2 ? '' : humanOutput(out.Value) + '\n'
})
