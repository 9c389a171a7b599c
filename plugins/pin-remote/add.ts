// ipfs pin remote add (kubo core/commands/pin/remotepin.go addRemotePinCmd): POST /pins with our addresses
// as origins when the block is here, dial the delegates the service answers with, then (unless
// --background) poll GET /pins/{requestid} every 500 ms until pinned or failed.
import type { RequestCradle } from '../../core/cradle.js'
import { RpcError } from '../../core/errors.js'
import type { RemotePinStatus } from '../../core/pinning/client.js'
import { defineCommand } from '../../registry/define.js'
import { tabwrite } from '../../core/util/tabwriter.js'
import { validatePinName } from '../shared/cmdutils.js'
import { addrInfos, parseMultiaddr } from '../swarm/common.js'
import { resolveRoot } from '../pin/common.js'
import { serviceFromRequest, serviceOption, toRemotePinOutput, type RemotePinOutput } from './common.js'

const PIN_WAIT_MS = 500

export const pinRemoteAdd = defineCommand({
  path: ['pin', 'remote', 'add'],
  description: 'Pin object to remote pinning service.',
  help: `Asks remote pinning service to pin an IPFS object from a given path or a CID.

To pin CID 'bafkqaaa' to service named 'mysrv' under a pin named 'mypin':

  $ ipfs pin remote add --service=mysrv --name=mypin bafkqaaa

The above command will block until remote service returns 'pinned' status,
which may take time depending on the size and available providers of the pinned
data.

If you prefer to not wait for pinning confirmation and return immediately
after remote service confirms 'queued' status, add the '--background' flag:

  $ ipfs pin remote add --service=mysrv --name=mypin --background bafkqaaa

Status of background pin requests can be inspected with the 'ls' command.

To list all pins for the CID across all statuses:

  $ ipfs pin remote ls --service=mysrv --cid=bafkqaaa --status=queued \\
      --status=pinning --status=pinned --status=failed

NOTE: a comma-separated notation is supported in CLI for convenience:

  $ ipfs pin remote ls --service=mysrv --cid=bafkqaaa --status=queued,pinning,pinned,failed`,
  args: [{ name: 'ipfs-path', kind: 'string', required: true, description: 'CID or Path to be pinned.' }],
  options: {
    ...serviceOption,
    name: { type: 'string', description: 'An optional name for the pin.' },
    background: { type: 'bool', default: false, description: 'Add to the queue on the remote service and return immediately (does not wait for pinned status).' }
  },
  // Kubo emits with res.Emit: a one-value stream
  output: 'ndjson',
  async * run ({ args, options, deps, signal, log }): AsyncGenerator<RemotePinOutput> {
    const client = serviceFromRequest(deps.config, options.service)
    const cid = await resolveRoot(deps, args[0], signal)
    if (options.name != null) validatePinName(options.name)

    // origins: where the service can fetch the data from, when it is here
    let origins: string[] | undefined
    if (await deps.blockstore.has(cid, { signal }) && deps.libp2p != null) {
      origins = deps.libp2p.getMultiaddrs().map(a => a.toString())
    }

    let ps = await client.add({ cid: cid.toString(), name: options.name, origins }, signal)
    connectDelegates(deps, ps, log)

    if (!options.background) {
      const requestid = ps.requestid
      for (;;) {
        try {
          ps = await client.get(requestid, signal)
        } catch (err) {
          if (signal.aborted) throw new RpcError(`waiting for pin interrupted, requestid=${JSON.stringify(requestid)} remains on remote service`)
          throw new RpcError(`failed to check pin status for requestid=${JSON.stringify(requestid)} due to error: ${(err as Error).message}`)
        }
        if (ps.requestid !== requestid) {
          throw new RpcError(`failed to check pin status for requestid=${JSON.stringify(requestid)}, remote service sent unexpected requestid=${JSON.stringify(ps.requestid)}`)
        }
        if (ps.status === 'pinned') break
        if (ps.status === 'failed') throw new RpcError(`remote service failed to pin requestid=${JSON.stringify(requestid)}`)
        if (!await sleep(PIN_WAIT_MS, signal)) {
          throw new RpcError(`waiting for pin interrupted, requestid=${JSON.stringify(requestid)} remains on remote service`)
        }
      }
    }
    yield toRemotePinOutput(ps, c => deps.cidEncoder.encode(c))
  },
  text: (out) => tabwrite(`CID:\t${out.Cid}\nName:\t${out.Name}\nStatus:\t${out.Status}\n`, { minwidth: 0, tabwidth: 0, padding: 1 })
})

/**
 * Kubo dials each delegate (a failed dial is only logged); an address that is not a p2p multiaddr is an error.
 * Here the dials run beside the wait instead of before it.
 */
function connectDelegates (deps: RequestCradle, ps: RemotePinStatus, log: RequestCradle['log']): void {
  const delegates = Array.isArray(ps.delegates) ? ps.delegates : []
  const infos = addrInfos(delegates.map(d => parseMultiaddr(String(d))))
  const { libp2p, network } = deps
  if (libp2p == null || network == null) return
  for (const info of infos) {
    void (async () => {
      for (const a of info.addrs) network.filters.vouch(a)
      await libp2p.peerStore.merge(info.id, { multiaddrs: info.addrs })
      await libp2p.dial(info.addrs.length > 0 ? info.addrs.map(a => a.encapsulate(`/p2p/${info.id.toString()}`)) : info.id, { signal: AbortSignal.timeout(30_000) })
    })().catch(err => { log.info(`error connecting to remote pin delegate ${info.id.toString()} : ${(err as Error).message}`) })
  }
}

async function sleep (ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false
  return await new Promise<boolean>(resolve => {
    const done = (ok: boolean): void => { clearTimeout(timer); signal.removeEventListener('abort', onAbort); resolve(ok) }
    const onAbort = (): void => { done(false) }
    const timer = setTimeout(() => { done(true) }, ms)
    signal.addEventListener('abort', onAbort)
  })
}
