// Where fuzz targets run: the Koa RPC and gateway apps in this process over a temp on-disk repo (fast,
// real flatfs so a partial write would show in `repo verify`), or one spawned daemon (the real server).
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { createTestNode } from '../helpers/node.js'
import { initTestRepo, startDaemon, type Daemon } from '../helpers/daemon.js'
import { createRpcApp } from '../../server/app.js'
import { attachProxySupport, createGatewayApp, GO_MAX_HEADER_BYTES } from '../../server/gateway/index.js'
import { healthy, seed, Hang, type FuzzContext, type Outcome, type Target } from './harness.js'

/** The subdomain gateway the Host-header target aims at. */
export const PUBLIC_GATEWAYS = { 'example.com': { UseSubdomains: true, InlineDNSLink: true, Paths: ['/ipfs', '/ipns'] } }

export interface FuzzNode {
  ctx: FuzzContext
  stop: () => Promise<void>
  /** the spawned daemon (undefined in process) */
  daemon?: Daemon
}

async function listen (handler: http.RequestListener): Promise<{ server: http.Server, url: string }> {
  // as the daemon creates its servers (server/daemon.ts)
  const server = http.createServer({ keepAlive: true, requestTimeout: 0, maxHeaderSize: GO_MAX_HEADER_BYTES }, handler)
  server.headersTimeout = 0
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

/** The RPC and gateway apps in this process, on a fresh temp repo with the fixtures added. */
export async function inProcessNode (): Promise<FuzzNode> {
  const repo = initTestRepo('tsipfs-fuzz-')
  const node = await createTestNode({ repoPath: repo })
  await node.container.cradle.config.setKey('Gateway.PublicGateways', PUBLIC_GATEWAYS)
  let port = 0
  const rpc = await listen(createRpcApp({ container: node.container, port: () => port }).callback())
  port = Number(new URL(rpc.url).port)
  const gw = await listen(createGatewayApp({ container: node.container, dnslink: {} }).callback())
  attachProxySupport(gw.server)
  const ctx: FuzzContext = { rpc: rpc.url, gateway: gw.url, fixtures: await seed(rpc.url) }
  return {
    ctx,
    stop: async () => {
      for (const s of [rpc.server, gw.server]) {
        s.closeAllConnections()
        await new Promise(resolve => s.close(resolve))
      }
      await node.stop()
      rmSync(repo, { recursive: true, force: true })
    }
  }
}

/** One spawned daemon (offline, test profile) with the fixtures added. */
export async function daemonNode (): Promise<FuzzNode> {
  const d = await startDaemon({ config: { 'Gateway.PublicGateways': PUBLIC_GATEWAYS } })
  const gateway = readFileSync(path.join(d.repo, 'gateway'), 'utf8').trim()
  return { ctx: { rpc: d.url, gateway, fixtures: await seed(d.url) }, daemon: d, stop: async () => { await d.stop() } }
}

export interface RunStats { cases: number, outcomes: Record<Outcome, number> }

/**
 * Run `numRuns` inputs of a target from `seed` and then the health check. Resolves with the counts;
 * rejects with fast-check's report (the shrunk counterexample and the seed to replay it).
 */
export async function runTarget (node: FuzzNode, t: Target, opts: { seed: number, numRuns: number, stats?: RunStats }): Promise<RunStats> {
  const stats = opts.stats ?? { cases: 0, outcomes: { ok: 0, client: 0, server: 0 } }
  await fc.assert(fc.asyncProperty(t.arb, async (input) => {
    stats.cases++
    const o = await t.run(node.ctx, input)
    stats.outcomes[o]++
  }), {
    seed: opts.seed,
    numRuns: opts.numRuns,
    endOnFailure: true,
    // shrinking a hang waits out every timeout: report the first one as it is
    markInterruptAsFailure: true
  }).catch((err: Error) => {
    const cause = (err as Error & { cause?: unknown }).cause
    if (cause instanceof Hang || /no answer in \d+ ms/.test(`${err.message} ${String((cause as Error | undefined)?.message ?? '')}`)) err.name = 'Hang'
    throw err
  })
  await healthy(node.ctx)
  return stats
}
