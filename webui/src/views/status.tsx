// Status: identity, API level, addresses, peers, repo size vs Datastore.StorageMax, live bandwidth.
import type { JSX } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, call, configValue, errorText } from '../api'
import { Copy, ErrorBox, formatBytes, formatSI, parseSize, Section, useApi } from '../ui'

interface Id { ID: string, AgentVersion: string, Addresses: string[] | null, Protocols: string[] | null }
interface Version { Version: string, Commit: string, Repo: string, System: string, Golang?: string }
interface RepoStat { RepoSize: number, StorageMax: number, NumObjects: number, RepoPath: string, Version: string }
interface Bw { TotalIn: number, TotalOut: number, RateIn: number, RateOut: number }

const WINDOW = 300 // seconds of history kept (5 minutes)
const POLL = 1000

export function StatusView (): JSX.Element {
  const id = useApi(async () => await call<Id>('id'), [])
  const ver = useApi(async () => await call<Version>('version'), [])
  // the first call counts objects; later ones (every 10 s) only read the size, as counting walks the repo
  const objects = useRef<number | undefined>(undefined)
  const repo = useApi(async () => {
    const [stat, max] = await Promise.all([call<RepoStat>('repo/stat', { 'size-only': objects.current != null }), configValue<string>('Datastore.StorageMax').catch(() => undefined)])
    objects.current ??= stat.NumObjects
    return { stat, max: parseSize(max) ?? stat.StorageMax, objects: objects.current }
  }, [], 10_000)
  const peers = useApi(async () => (await call<{ Peers: unknown[] | null }>('swarm/peers')).Peers?.length ?? 0, [], 5000)

  return (
    <div class='grid'>
      <Section title='This node' id='s-node'>
        <ErrorBox error={id.error} what='Identity' />
        <dl class='facts'>
          <dt>Peer ID</dt>
          <dd class='mono wrap' data-testid='peer-id'>{id.data?.ID ?? '…'} {id.data != null && <Copy text={id.data.ID} />}</dd>
          <dt>Agent</dt>
          <dd data-testid='agent'>{id.data?.AgentVersion ?? '…'}</dd>
          <dt>Kubo RPC API</dt>
          <dd data-testid='api-level'>{ver.data != null ? `${ver.data.Version} (repo ${ver.data.Repo}, ${ver.data.System})` : '…'}</dd>
          <dt>Peers</dt>
          <dd data-testid='peer-count'>
            {peers.data != null
              ? <a href='#/peers'>{peers.data} connected</a>
              : peers.error instanceof ApiError && peers.error.notFound ? 'not available (no swarm command)' : peers.error != null && !(peers.error instanceof ApiError && peers.error.denied) ? offlineText(peers.error) : '…'}
          </dd>
        </dl>
      </Section>
      <Section title='Repository' id='s-repo'>
        <ErrorBox error={repo.error} what='Repo' />
        {repo.data != null && <RepoBar size={repo.data.stat.RepoSize} max={repo.data.max} objects={repo.data.objects} />}
      </Section>
      <Bandwidth />
      <Section title='Addresses' id='s-addrs'>
        {id.data?.Addresses == null || id.data.Addresses.length === 0
          ? <p class='muted'>{id.data == null ? '…' : 'No swarm addresses (the node runs offline).'}</p>
          : <ul class='addrs mono' data-testid='addresses'>{id.data.Addresses.map(a => <li key={a}>{a}</li>)}</ul>}
      </Section>
    </div>
  )
}

const offlineText = (e: unknown): string => /offline|online mode/i.test(errorText(e)) ? 'offline' : errorText(e)

function RepoBar ({ size, max, objects }: { size: number, max: number, objects: number }): JSX.Element {
  const pct = max > 0 ? Math.min(100, (size / max) * 100) : 0
  return (
    <div data-testid='repo'>
      <p class='big'>{formatSI(size)} <span class='muted'>of {formatSI(max)}</span></p>
      <div class='meter' role='meter' aria-label='Repository size against Datastore.StorageMax' aria-valuemin={0} aria-valuemax={max} aria-valuenow={size} aria-valuetext={`${pct.toFixed(1)}%`}>
        <div style={{ width: `${Math.max(pct, 0.5)}%` }} />
      </div>
      <p class='muted'>{pct.toFixed(pct < 1 ? 2 : 1)}% of <code>Datastore.StorageMax</code> · {objects} {objects === 1 ? 'object' : 'objects'}</p>
    </div>
  )
}

interface Sample { t: number, in: number, out: number }

function Bandwidth (): JSX.Element {
  const [samples, setSamples] = useState<Sample[]>([])
  const [last, setLast] = useState<Bw>()
  const [error, setError] = useState<unknown>()
  useEffect(() => {
    let live = true
    let timer: ReturnType<typeof setTimeout>
    const tick = async (): Promise<void> => {
      try {
        const bw = await call<Bw>('stats/bw')
        if (!live) return
        setError(undefined)
        setLast(bw)
        const now = Date.now()
        setSamples(s => [...s.filter(x => x.t > now - WINDOW * 1000), { t: now, in: bw.RateIn, out: bw.RateOut }])
      } catch (e) {
        if (live) setError(e)
        if (e instanceof ApiError && e.notFound) return // stop polling: the node has no stats bw
      }
      if (live) timer = setTimeout(() => { void tick() }, POLL)
    }
    void tick()
    return () => { live = false; clearTimeout(timer) }
  }, [])
  return (
    <Section title='Bandwidth' id='s-bw'>
      <ErrorBox error={error} what='Bandwidth' />
      {last != null && (
        <>
          <div class='bw-now' data-testid='bw'>
            <span class='in'>▼ In {formatBytes(last.RateIn)}/s</span>
            <span class='out'>▲ Out {formatBytes(last.RateOut)}/s</span>
            <span class='muted'>Total in {formatBytes(last.TotalIn)} · out {formatBytes(last.TotalOut)}</span>
          </div>
          <Graph samples={samples} />
        </>
      )}
    </Section>
  )
}

function Graph ({ samples }: { samples: Sample[] }): JSX.Element {
  const W = 600
  const H = 160
  const now = samples[samples.length - 1]?.t ?? Date.now()
  // the x axis spans what has been seen, from one minute up to WINDOW
  const span = Math.min(WINDOW * 1000, Math.max(60_000, now - (samples[0]?.t ?? now)))
  const peak = Math.max(1024, ...samples.map(s => Math.max(s.in, s.out)))
  const x = (t: number): number => W - ((now - t) / span) * W
  const y = (v: number): number => H - 4 - (v / peak) * (H - 12)
  const line = (k: 'in' | 'out'): string => samples.map(s => `${x(s.t).toFixed(1)},${y(s[k]).toFixed(1)}`).join(' ')
  const area = (k: 'in' | 'out'): string => samples.length === 0 ? '' : `${x(samples[0].t).toFixed(1)},${H} ${line(k)} ${W},${H}`
  const lastS = samples[samples.length - 1]
  const ago = span >= 120_000 ? `${Math.round(span / 60_000)} min ago` : `${Math.round(span / 1000)} s ago`
  return (
    <figure class='graph'>
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio='none' role='img'
        aria-label={`Bandwidth since ${ago}; now in ${formatBytes(lastS?.in)}/s, out ${formatBytes(lastS?.out)}/s`}>
        {[0.25, 0.5, 0.75].map(f => <line key={f} x1='0' x2={W} y1={H * f} y2={H * f} class='gridline' />)}
        <polygon points={area('in')} class='in-area' />
        <polygon points={area('out')} class='out-area' />
        <polyline points={line('in')} class='in' />
        <polyline points={line('out')} class='out' />
      </svg>
      <figcaption class='muted'><span>{ago}</span><span>peak {formatBytes(peak)}/s</span><span>now</span></figcaption>
    </figure>
  )
}
