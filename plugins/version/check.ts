// ipfs version check (kubo core/commands/version.go DetectNewKuboVersion): compare our Kubo
// version with the AgentVersion of peers we have identified.
import { NotOnlineError } from '../../core/errors.js'
import { KUBO_VERSION } from '../../core/version.js'
import { defineCommand } from '../../registry/define.js'
import type { VersionCheckOutput } from './output.js'

/** config.DefaultSwarmCheckPercentThreshold */
const DEFAULT_MIN_PERCENT = 5

interface GoVersion { core: [number, number, number], prerelease: string, metadata: string }

/** hashicorp/go-version parsing, enough for Core(), Prerelease() and Metadata(). */
export function parseGoVersion (text: string): GoVersion | undefined {
  const m = /^v?([0-9]+(?:\.[0-9]+)*?)(?:-([0-9A-Za-z\-~]+(?:\.[0-9A-Za-z\-~]+)*)|(-?[A-Za-z\-~]+[0-9A-Za-z\-~]*(?:\.[0-9A-Za-z\-~]+)*))?(?:\+([0-9A-Za-z\-~]+(?:\.[0-9A-Za-z\-~]+)*))?$/.exec(text)
  if (m == null) return undefined
  const segs = m[1].split('.').map(Number)
  if (segs.some(n => !Number.isSafeInteger(n))) return undefined
  return {
    core: [segs[0] ?? 0, segs[1] ?? 0, segs[2] ?? 0],
    prerelease: m[2] ?? m[3]?.replace(/^-/, '') ?? '',
    metadata: m[4] ?? ''
  }
}

const compare = (a: readonly number[], b: readonly number[]): number => {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1
  return 0
}

/** The sampling and arithmetic of Kubo's DetectNewKuboVersion over a list of agent versions. */
export function detectNewVersion (agentVersions: Iterable<string>, minPercent: number, ours = KUBO_VERSION): VersionCheckOutput {
  const own = parseGoVersion(ours)
  if (own == null) throw new Error(`could not parse our own version "${ours}"`)
  let greatest = own.core
  let sampled = 1 // us (and no division by zero)
  let greater = 0
  for (const agent of agentVersions) {
    const segments = agent.split('/')
    if (segments.length < 2 || segments[0] !== 'kubo') continue
    const v = parseGoVersion(segments[1])
    // invalid versions, prereleases and dev builds are ignored
    if (v == null || v.metadata !== '' || v.prerelease !== '') continue
    sampled++
    if (compare(own.core, v.core) < 0) greater++
    if (compare(v.core, greatest) > 0) greatest = v.core
  }
  let percent = minPercent
  if (percent < 1 || percent > 100) {
    if (percent === 0) percent = DEFAULT_MIN_PERCENT
    else throw new Error('Version.SwarmCheckPercentThreshold must be between 1 and 100')
  }
  return {
    UpdateAvailable: greater / sampled >= percent / 100,
    RunningVersion: own.core.join('.'),
    GreatestVersion: greatest.join('.'),
    PeersSampled: sampled,
    WithGreaterVersion: greater
  }
}

export const versionCheck = defineCommand({
  path: ['version', 'check'],
  description: 'Checks Kubo version against connected peers.',
  help: "This command uses the libp2p identify protocol to check the 'AgentVersion'\nof connected peers and see if the Kubo version we're running is outdated.\n\nPeers with an AgentVersion that doesn't start with 'kubo/' are ignored.\n'UpdateAvailable' is set to true only if the 'min-fraction' criteria are met.",
  options: {
    'min-percent': { type: 'int', aliases: ['t'], default: DEFAULT_MIN_PERCENT, description: 'Percentage (1-100) of sampled peers with the new Kubo version needed to trigger an update warning.' }
  },
  output: 'single',
  run: async ({ deps: { libp2p } }): Promise<VersionCheckOutput> => {
    if (libp2p == null) throw new NotOnlineError()
    // Kubo samples the peers its DHT has seen; the peer store holds every peer identify has told us about
    const agents: string[] = []
    for (const peer of await libp2p.peerStore.all()) {
      const agent = peer.metadata.get('AgentVersion')
      if (agent != null) agents.push(new TextDecoder().decode(agent))
    }
    // Kubo reads this int option as int64, which never matches, so it always uses the default:
    // min-percent has no effect there, and we keep that answer
    return detectNewVersion(agents, 0)
  }
})
