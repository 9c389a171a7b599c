// ipfs repo stat (kubo core/commands/repo.go repoStatCmd, corerepo.RepoStat/RepoSize): disk usage of
// the stores, Datastore.StorageMax, block count, repo path and version. Also served as `stats repo`.
import { defineCommand } from '../../registry/define.js'
import { REPO_VERSION } from '../../core/version.js'
import { tabwrite } from '../../core/util/tabwriter.js'
import { NO_LIMIT, storageMax, storageUsage } from '../../core/gc/usage.js'
import { humanizeBytes } from '../dag/stat.js'
import type { RawJson, RepoStat } from './output.js'

/** math.MaxUint64 must reach the wire exactly: a raw JSON number (JSON.rawJSON, Node >= 21). */
const rawJson = (text: string): RawJson => (JSON as unknown as { rawJSON: (t: string) => RawJson }).rawJSON(text)

/** StorageMax as decimal text, whether it is a number, a raw JSON number, or MaxUint64 read back as a float. */
function sizeText (v: number | RawJson): string {
  if (typeof v === 'object' && v != null) return v.rawJSON
  if (v >= 2 ** 64) return NO_LIMIT
  return String(v)
}

export const repoStat = defineCommand({
  path: ['repo', 'stat'],
  description: 'Get stats for the currently used repo.',
  help: `'ipfs repo stat' provides information about the local set of
stored objects. It outputs:

RepoSize        int Size in bytes that the repo is currently taking.
StorageMax      string Maximum datastore size (from configuration)
NumObjects      int Number of objects in the local repo.
RepoPath        string The path to the repo being currently used.
Version         string The repo version.`,
  options: {
    'size-only': { type: 'bool', aliases: ['s'], description: 'Only report RepoSize and StorageMax.' },
    human: { type: 'bool', aliases: ['H'], description: 'Print sizes in human readable format (e.g., 1K 234M 2G)' }
  },
  output: 'single',
  async run ({ options, deps, signal }): Promise<RepoStat> {
    const max = storageMax(deps.config)
    const usage = await storageUsage(deps.repoPath, deps.blockstore, { signal, sizeOnly: options.sizeOnly === true })
    const StorageMax = max === NO_LIMIT ? rawJson(NO_LIMIT) : max
    if (options.sizeOnly === true) return { RepoSize: usage.size, StorageMax, NumObjects: 0, RepoPath: '', Version: '' }
    return { RepoSize: usage.size, StorageMax, NumObjects: usage.blocks, RepoPath: deps.repoPath, Version: `fs-repo@${REPO_VERSION}` }
  },
  text: (stat, { options }) => {
    const size = (v: number | RawJson): string => {
      const text = sizeText(v)
      return options.human === true ? humanizeBytes(Number(text)) : text
    }
    let out = ''
    if (options.sizeOnly !== true) out += `NumObjects:\t${stat.NumObjects}\n`
    out += `RepoSize:\t${size(stat.RepoSize)}\n`
    out += `StorageMax:\t${size(stat.StorageMax)}\n`
    if (options.sizeOnly !== true) out += `RepoPath:\t${stat.RepoPath}\nVersion:\t${stat.Version}\n`
    return tabwrite(out, { minwidth: 0, tabwidth: 0, padding: 1, padchar: ' ' })
  }
})
