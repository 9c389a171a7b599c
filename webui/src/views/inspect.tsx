// Inspect a CID: its stat (files stat), its DAG node (dag get), its links with sizes (ls), and
// import, pin, unpin, preview from there.
import type { JSX } from 'preact'
import { call, gatewayUrl } from '../api'
import { act, ask, ErrorBox, formatBytes, Section, short, showDialog, useApi } from '../ui'
import { Preview } from './preview'

interface Stat { Hash: string, Size: number, CumulativeSize: number, Blocks: number, Type: string }
interface Link { Name: string, Hash: string, Size: number, Type: number }

const TYPES: Record<number, string> = { 0: 'raw', 1: 'directory', 2: 'file', 3: 'metadata', 4: 'symlink', 5: 'HAMT directory' }

/** CIDs linked from a dag-json value ({"/": "cid"}), for nodes `ls` cannot list. */
function linksIn (v: unknown, path = '', out: Link[] = []): Link[] {
  if (v == null || typeof v !== 'object') return out
  if (!Array.isArray(v) && typeof (v as any)['/'] === 'string' && Object.keys(v).length === 1) {
    out.push({ Name: path.replace(/^\//, ''), Hash: (v as any)['/'], Size: 0, Type: -1 })
    return out
  }
  for (const [k, x] of Object.entries(v)) linksIn(x, `${path}/${k}`, out)
  return out
}

export function InspectView ({ cid }: { cid: string }): JSX.Element {
  const target = cid.startsWith('/') ? cid : `/ipfs/${cid}`
  const stat = useApi(async () => await call<Stat>('files/stat', { arg: target }), [target])
  const dag = useApi(async () => await call<unknown>('dag/get', { arg: target }), [target])
  const links = useApi(async () => (await call<{ Objects: Array<{ Links: Link[] }> }>('ls', { arg: target, 'resolve-type': true, size: true })).Objects?.[0]?.Links ?? [], [target])
  const pins = useApi(async () => await call<{ Keys: Record<string, { Type: string }> }>('pin/ls', { arg: target }).then(r => Object.values(r.Keys)[0]?.Type ?? null, () => null), [target])
  const gw = useApi(async () => await gatewayUrl().catch(() => undefined), [])
  const shownLinks = links.data ?? (dag.data != null ? linksIn(dag.data) : [])
  const json = dag.data != null ? JSON.stringify(dag.data, null, 2) : ''

  const importIt = async (): Promise<void> => {
    const a = await ask({ title: 'Import into Files', fields: [{ name: 'to', label: 'MFS path', value: '/' + (stat.data?.Hash ?? cid).slice(0, 12) }], ok: 'Import' })
    if (a != null && a.to.trim() !== '') await act('Import', async () => await call('files/cp', { arg: [target, a.to.trim()] }), `Imported to ${a.to.trim()}`)
  }
  const pin = async (on: boolean): Promise<void> => {
    if (await act(on ? 'Pin' : 'Unpin', async () => await call(on ? 'pin/add' : 'pin/rm', { arg: target }), on ? 'Pinned' : 'Unpinned')) pins.reload()
  }
  return (
    <div class='grid inspect'>
      <Section title='Inspect' id='i-head' actions={
        <>
          <button type='button' onClick={() => { void importIt() }}>Import to Files</button>
          {pins.data != null && pins.data !== 'indirect'
            ? <button type='button' onClick={() => { void pin(false) }}>Unpin</button>
            : <button type='button' onClick={() => { void pin(true) }}>Pin</button>}
          {stat.data?.Type === 'file' && <button type='button' onClick={() => { void showDialog('Preview', <Preview cid={stat.data?.Hash as string} name={cid} size={stat.data?.Size ?? 0} gw={gw.data} />) }}>Preview</button>}
        </>}>
        <p class='mono wrap' data-testid='inspect-cid'>{target}</p>
        <ErrorBox error={stat.error} what='Stat' />
        {stat.data != null && (
          <dl class='facts' data-testid='inspect-stat'>
            <dt>CID</dt><dd class='mono wrap'>{stat.data.Hash}</dd>
            <dt>Type</dt><dd>{stat.data.Type}</dd>
            <dt>Size</dt><dd>{formatBytes(stat.data.Size)}</dd>
            <dt>Cumulative size</dt><dd>{formatBytes(stat.data.CumulativeSize)} ({stat.data.CumulativeSize} bytes)</dd>
            <dt>Child blocks</dt><dd>{stat.data.Blocks}</dd>
            <dt>Pinned</dt><dd>{pins.data ?? 'no'}</dd>
          </dl>
        )}
      </Section>
      <Section title={`Links (${shownLinks.length})`} id='i-links'>
        {shownLinks.length === 0
          ? <p class='muted'>{links.loading && dag.loading ? 'Loading…' : 'No links.'}</p>
          : (
            <div class='table-wrap'>
              <table class='list' data-testid='inspect-links'>
                <thead><tr><th scope='col'>Name</th><th scope='col'>CID</th><th scope='col' class='num'>Size</th><th scope='col' class='wide-only'>Type</th></tr></thead>
                <tbody>
                  {shownLinks.map((l, i) => (
                    <tr key={i}>
                      <td>{l.Name || <span class='muted'>(unnamed)</span>}</td>
                      <td class='mono'><a href={'#/inspect/' + l.Hash} title={l.Hash}>{short(l.Hash)}</a></td>
                      <td class='num'>{l.Type === -1 ? '' : formatBytes(l.Size)}</td>
                      <td class='wide-only'>{TYPES[l.Type] ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>)}
      </Section>
      <Section title='DAG node' id='i-dag'>
        <ErrorBox error={dag.error} what='dag get' />
        {dag.data != null && <pre class='json' tabIndex={0} data-testid='inspect-dag'>{json.length > 20000 ? json.slice(0, 20000) + '\n…' : json}</pre>}
      </Section>
    </div>
  )
}
