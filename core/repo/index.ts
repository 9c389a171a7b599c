// The on-disk repo in Kubo's layout: config, version, datastore_spec, keystore/, blocks/ (flatfs), datastore/ (leveldb).
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import type { PrivateKey } from '@libp2p/interface'
import { RpcError, NotInitializedError } from '../errors.js'
import { defaultConfig, type KuboConfig } from '../config/defaults.js'
import { applyProfiles } from '../config/profiles.js'
import { configPath, loadConfigFile, serializeConfig } from '../config/index.js'
import { writeFileAtomic } from '../util/fs.js'
import { repoLocked } from './lock.js'
import { diskSpecText, storesOf, type RepoStores } from './spec.js'
import { FlatfsBlockstore, SHARDING_README, SHARDING_SPEC, flatfsSync, spreadShardFolders } from '../blockstore/flatfs.js'
import { NodeBlockstore } from '../blockstore/index.js'
import { createPins, pinEmptyDir } from '../pins/index.js'
import { LevelDatastore } from 'datastore-level'

export const REPO_VERSION = 18

export interface Repo {
  /** '' for an in-memory repo */
  readonly path: string
  readonly version: number
  /** write $IPFS_PATH/api (the first API listener) */
  setApiAddr: (addr: string) => Promise<void>
  setGatewayAddr: (url: string) => Promise<void>
  /** remove the api/gateway files (daemon stop) */
  clearAddrs: () => Promise<void>
}

// the light helpers the CLI needs before it knows whether to load a node (core/repo/paths.ts)
export { defaultRepoPath, isInitialized, readApiFile, readRepoConfig } from './paths.js'
import { isInitialized } from './paths.js'

export interface InitOptions {
  algorithm?: string
  bits?: number
  profile?: string
  /** a full config to start from (init's default-config argument) */
  config?: KuboConfig
  /** an identity made beforehand (init prints it before checking the repo) */
  key?: PrivateKey
  /**
   * pin the empty directory with stores opened here (default); false when the caller opens the repo
   * next and pins it itself (`init`: the stores are opened once)
   */
  seed?: boolean
}

export interface InitResult { peerId: string, keyType: string, bits?: number }

export async function generateIdentity (algorithm = 'ed25519', bits?: number): Promise<PrivateKey> {
  switch (algorithm.toLowerCase()) {
    case 'ed25519':
      if (bits != null) throw new RpcError('number of key bits does not apply when using ed25519 keys')
      return await generateKeyPair('Ed25519')
    case 'secp256k1':
      if (bits != null && bits !== 0 && bits !== 256) throw new RpcError(`invalid key size ${bits}: secp256k1 keys are always 256 bits`)
      return await generateKeyPair('secp256k1')
    case 'rsa': {
      const size = bits == null || bits === 0 ? 2048 : bits
      if (size < 2048) throw new RpcError(`rsa keys must be >= 2048 bits to be useful`)
      return await generateKeyPair('RSA', size)
    }
    default:
      throw new RpcError(`unrecognized key type: ${algorithm}`)
  }
}

export function identityOf (key: PrivateKey): { PeerID: string, PrivKey: string } {
  return {
    PeerID: peerIdFromPrivateKey(key).toString(),
    PrivKey: Buffer.from(privateKeyToProtobuf(key)).toString('base64')
  }
}

export function privateKeyFromConfig (cfg: KuboConfig): PrivateKey {
  const id = cfg.Identity as { PrivKey?: string } | undefined
  if (id?.PrivKey == null || id.PrivKey === '') throw new RpcError('identity was not set in config (was \'ipfs init\' run?)')
  return privateKeyFromProtobuf(Buffer.from(id.PrivKey, 'base64'))
}

/** Build a new config: identity, defaults, profiles. */
export async function buildInitConfig (opts: InitOptions): Promise<{ config: KuboConfig, key: PrivateKey }> {
  // a given config is used as it is, identity included (Kubo's init with a config file generates no key)
  if (opts.config != null && opts.key == null) {
    const config = structuredClone(opts.config)
    if (opts.profile != null && opts.profile !== '') applyProfiles(config, opts.profile)
    return { config, key: privateKeyFromConfig(config) }
  }
  const key = opts.key ?? await generateIdentity(opts.algorithm, opts.bits)
  const config = opts.config != null ? structuredClone(opts.config) : defaultConfig(identityOf(key))
  config.Identity = identityOf(key)
  if (opts.profile != null && opts.profile !== '') applyProfiles(config, opts.profile)
  return { config, key }
}

/** Write a fresh repo. Fails if one exists or a daemon holds it. */
export async function initRepo (repoPath: string, opts: InitOptions = {}): Promise<{ config: KuboConfig, key: PrivateKey }> {
  if (await repoLocked(repoPath)) throw new RpcError('ipfs daemon is running. please stop it to run this command')
  if (await isInitialized(repoPath)) {
    throw new RpcError('ipfs configuration file already exists!\nReinitializing would overwrite your keys')
  }
  const built = await buildInitConfig(opts)
  // a datastore tsipfs cannot run (pebbleds, badgerds) is refused before anything is written
  const stores = storesOf(repoPath, built.config)
  await fs.mkdir(repoPath, { recursive: true, mode: 0o700 })
  await fs.mkdir(path.join(repoPath, 'keystore'), { recursive: true, mode: 0o700 })
  await fs.mkdir(stores.blocks, { recursive: true })
  await spreadShardFolders(stores.blocks)
  await fs.writeFile(path.join(stores.blocks, 'SHARDING'), SHARDING_SPEC + '\n')
  await fs.writeFile(path.join(stores.blocks, '_README'), SHARDING_README, { mode: 0o444 })
  await fs.mkdir(stores.datastore, { recursive: true })
  await writeFileAtomic(path.join(repoPath, 'datastore_spec'), diskSpecText(built.config), 0o600)
  if (opts.seed !== false) await seedRepo(stores, flatfsSync((built.config.Datastore as { Spec?: unknown } | undefined)?.Spec))
  await writeFileAtomic(path.join(repoPath, 'version'), `${REPO_VERSION}\n`)
  // config last: its presence is what marks the repo initialised
  await writeFileAtomic(configPath(repoPath), serializeConfig(built.config), 0o600)
  return built
}

/** Kubo's init pins the empty directory recursively: its block in blocks/, its pin in the leveldb datastore. */
async function seedRepo (stores: RepoStores, sync: boolean): Promise<void> {
  const flatfs = new FlatfsBlockstore(stores.blocks, { sync })
  await flatfs.open()
  const level = new LevelDatastore(stores.datastore)
  await level.open()
  try {
    const blockstore = new NodeBlockstore(flatfs)
    await pinEmptyDir(blockstore, createPins({ datastore: level, blockstore }))
  } finally {
    await level.close()
    await flatfs.close()
  }
}

export function createRepo (repoPath: string): Repo {
  return {
    path: repoPath,
    version: REPO_VERSION,
    setApiAddr: async (addr) => { if (repoPath !== '') await writeFileAtomic(path.join(repoPath, 'api'), addr) },
    setGatewayAddr: async (url) => { if (repoPath !== '') await writeFileAtomic(path.join(repoPath, 'gateway'), url) },
    clearAddrs: async () => {
      if (repoPath === '') return
      await fs.rm(path.join(repoPath, 'api'), { force: true })
      await fs.rm(path.join(repoPath, 'gateway'), { force: true })
    }
  }
}

