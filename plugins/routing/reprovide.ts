// ipfs routing reprovide (deprecated): Kubo 0.40's sweep provider refuses a manual cycle.
import { defineCommand } from '../../registry/define.js'
import { NotOnlineError, RpcError } from '../../core/errors.js'
import { provideInterval } from '../../core/provider/index.js'
import { PROVIDE_DISABLED } from './provide.js'

/** Kubo 0.40.1's text (with Provide.DHT.SweepEnabled, the default) */
export const SWEEP_REPROVIDE = 'manual reprovide only available with legacy provider (Provide.DHT.SweepEnabled=false)'

export const routingReprovide = defineCommand({
  path: ['routing', 'reprovide'],
  description: 'Trigger a reprovide cycle (legacy provider only).',
  help: "Forces the legacy provider to reprovide all locally stored CIDs that match\nProvide.Strategy.\n\nOnly works when Provide.DHT.SweepEnabled=false. With the default sweep\nprovider, reproviding is continuous and scheduled, so this command returns\nan error. Use 'ipfs provide stat --all' to monitor sweep progress.",
  status: 'deprecated',
  replacement: "use 'ipfs provide stat' instead",
  output: 'single',
  async run ({ deps }): Promise<undefined> {
    if (deps.libp2p == null) throw new NotOnlineError()
    if (deps.config.getKey('Provide.Enabled') === false) throw new RpcError(PROVIDE_DISABLED)
    if (provideInterval(deps.config) === 0) throw new RpcError("invalid configuration: Provide.DHT.Interval is set to '0'")
    // the legacy provider (SweepEnabled=false) runs a cycle on demand
    if (deps.config.getKey('Provide.DHT.SweepEnabled') !== false || deps.provider == null) throw new RpcError(SWEEP_REPROVIDE)
    await deps.provider.reprovide()
    return undefined
  }
})
