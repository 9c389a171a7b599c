// Versions reported on the wire.
import { readFileSync } from 'node:fs'

/** The Kubo API level this daemon implements, reported as `Version` by /api/v0/version. */
export const KUBO_VERSION = '0.40.1'
export const REPO_VERSION = 18

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
/** This product's own version. */
export const PRODUCT_VERSION: string = pkg.version
/** libp2p agent version and `id`'s AgentVersion: the product's own name and version */
export const AGENT_VERSION = `tsipfs/${PRODUCT_VERSION}`
let agentSuffix = ''
/** `daemon --agent-version-suffix` (Kubo version.SetUserAgentSuffix): appended after a `/` */
export function setAgentVersionSuffix (suffix: string): void { agentSuffix = suffix }
/** The agent version with the daemon's suffix, as `id` and identify show it (Kubo GetUserAgentVersion). */
export function agentVersion (): string { return agentSuffix !== '' ? `${AGENT_VERSION}/${agentSuffix}` : AGENT_VERSION }
/** Server header on every RPC and gateway response */
export const SERVER_HEADER = `tsipfs/${PRODUCT_VERSION}`
