// Peers: `swarm peers --verbose --latency --direction --identify`, `stats bw --peer` per peer,
// `swarm connect` / `swarm disconnect`.
import type { JSX } from 'preact'
import { useState } from 'preact/hooks'
import { ApiError, call, errorText } from '../api'
import { act, ErrorBox, formatBytes, formatLatency, Section, short, useApi } from '../ui'

interface Peer {
  Addr: string
  Peer: string
  Latency?: string
  Direction?: number
  Identify?: { AgentVersion?: string, Protocols?: string[] | null }
}
interface Bw { TotalIn: number, TotalOut: number, RateIn: number, RateOut: number }

function checkStrings (r: { Strings?: string[] | null } | undefined): void {
  const bad = (r?.Strings ?? []).find(l => / failure: /.test(l))
  if (bad != null) throw new Error(bad.replace(/^.* failure: /, ''))
}

const DIRECTIONS: Record<number, string> = { 0: 'unknown', 1: 'inbound', 2: 'outbound' }
const MAX_BW_PEERS = 30

export function PeersView (): JSX.Element {
  const peers = useApi(async () => {
    const list = (await call<{ Peers: Peer[] | null }>('swarm/peers', { verbose: true, latency: true, direction: true, identify: true })).Peers ?? []
    const bw = new Map<string, Bw>()
    await Promise.all(list.slice(0, MAX_BW_PEERS).map(async p => {
      try { bw.set(p.Peer, await call<Bw>('stats/bw', { peer: p.Peer })) } catch {}
    }))
    return { list, bw }
  }, [], 5000)
  const [addr, setAddr] = useState('')

  const connect = async (e: Event): Promise<void> => {
    e.preventDefault()
    const a = addr.trim()
    if (a === '') return
    if (await act('Connect', async () => checkStrings(await call('swarm/connect', { arg: a })), `Connected to ${short(a.split('/').pop() ?? a)}`)) { setAddr(''); peers.reload() }
  }
  // `/p2p/<id>` closes every connection to the peer; the answer lists "... failure: <why>" lines on errors
  const disconnect = async (p: Peer): Promise<void> => {
    if (await act('Disconnect', async () => checkStrings(await call('swarm/disconnect', { arg: `/p2p/${p.Peer}` })), `Disconnected ${short(p.Peer)}`)) peers.reload()
  }
  const missing = peers.error instanceof ApiError && peers.error.notFound
  const offline = peers.error != null && /offline|online mode/i.test(errorText(peers.error))

  return (
    <div class='rows'>
      <Section title='Connect to a peer' id='p-connect'>
        <form class='inline' onSubmit={(e) => { void connect(e) }}>
          <label class='grow'><span class='sr'>Peer multiaddr</span>
            <input value={addr} onInput={(e) => setAddr((e.currentTarget as HTMLInputElement).value)} placeholder='/ip4/…/tcp/4001/p2p/12D3Koo…' aria-label='Peer multiaddr' spellcheck={false} />
          </label>
          <button type='submit' class='primary'>Connect</button>
        </form>
      </Section>
      <Section title={`Connected peers${peers.data != null ? ` (${peers.data.list.length})` : ''}`} id='p-list'>
        {missing
          ? <p class='note'>This node has no <code>swarm peers</code> command yet (command not found).</p>
          : offline
            ? <p class='note'>The node runs offline: no peers. Start the daemon without <code>--offline</code>.</p>
            : <ErrorBox error={peers.error} what='Peers' />}
        {peers.data != null && (peers.data.list.length === 0
          ? <p class='empty'>No connected peers.</p>
          : (
            <div class='table-wrap'>
              <table class='list' data-testid='peers'>
                <thead>
                  <tr><th scope='col'>Peer</th><th scope='col' class='wide-only'>Address</th><th scope='col'>Direction</th><th scope='col' class='num'>Latency</th>
                    <th scope='col' class='wide-only'>Agent</th><th scope='col' class='num'>Bandwidth in / out</th><th scope='col'><span class='sr'>Actions</span></th></tr>
                </thead>
                <tbody>
                  {peers.data.list.map(p => {
                    const bw = peers.data?.bw.get(p.Peer)
                    return (
                      <tr key={p.Peer + p.Addr}>
                        <td class='mono nowrap' title={p.Peer}>{short(p.Peer)}</td>
                        <td class='mono wide-only wrap addr'>{p.Addr}</td>
                        <td>{DIRECTIONS[p.Direction ?? 0] ?? 'unknown'}</td>
                        <td class='num'>{formatLatency(p.Latency)}</td>
                        <td class='wide-only'>{p.Identify?.AgentVersion || <span class='muted'>unknown</span>}</td>
                        <td class='num'>{bw == null ? '–' : <>{formatBytes(bw.RateIn)}/s / {formatBytes(bw.RateOut)}/s<br /><span class='muted'>{formatBytes(bw.TotalIn)} / {formatBytes(bw.TotalOut)}</span></>}</td>
                        <td><button type='button' class='small' onClick={() => { void disconnect(p) }} aria-label={`Disconnect ${p.Peer}`}>Disconnect</button></td>
                      </tr>
                    )
                  })}
                </tbody>
              </table>
            </div>))}
      </Section>
    </div>
  )
}
