// Files: browse MFS, folders, drag-and-drop uploads with progress, download, rename, move, delete,
// import by CID or path (files cp), pin/unpin, previews through the gateway.
import type { JSX } from 'preact'
import { useRef, useState } from 'preact/hooks'
import { bytes, call, errorText, gatewayUrl, upload } from '../api'
import { act, ask, confirmDialog, ErrorBox, formatBytes, short, showDialog, toast, useApi } from '../ui'
import { collectDrop, type Upload, uploadForm } from './upload'
import { Preview } from './preview'
export { InspectView } from './inspect'

interface Entry { Name: string, Type: number, Size: number, Hash: string }

const join = (dir: string, name: string): string => (dir.endsWith('/') ? dir : dir + '/') + name
export const filesHref = (p: string): string => '#/files' + p.split('/').map(encodeURIComponent).join('/')

export function FilesView ({ path }: { path: string }): JSX.Element {
  const list = useApi(async () => (await call<{ Entries: Entry[] | null }>('files/ls', { arg: path, long: true })).Entries ?? [], [path])
  const pins = useApi(async () => new Set(Object.keys((await call<{ Keys: Record<string, unknown> }>('pin/ls', { type: 'recursive' })).Keys ?? {})), [])
  const gw = useApi(async () => await gatewayUrl().catch(() => undefined), [])
  const [progress, setProgress] = useState<{ sent: number, total: number, label: string } | null>(null)
  const [dragging, setDragging] = useState(false)
  const fileInput = useRef<HTMLInputElement>(null)
  const dirInput = useRef<HTMLInputElement>(null)
  const reload = (): void => { list.reload(); pins.reload() }

  const doUpload = async (items: Upload[]): Promise<void> => {
    if (items.length === 0) return
    const total = items.reduce((n, i) => n + (i.file?.size ?? 0), 0)
    const files = items.filter(i => i.file != null).length
    const label = `Uploading ${files} file${files === 1 ? '' : 's'} (${formatBytes(total)})`
    setProgress({ sent: 0, total: 1, label })
    try {
      const out = await upload<{ Name: string, Hash: string }>('add', { 'to-files': path.endsWith('/') ? path : path + '/', pin: false },
        uploadForm(items), (sent, t) => setProgress({ sent, total: t, label: sent >= t ? 'Adding to the node…' : label }))
      const tops = new Set(items.map(i => i.path.split('/')[0]))
      toast(`Added ${[...tops].join(', ')} (${out.length} entries)`)
    } catch (e) {
      toast(`Upload failed: ${errorText(e)}`, 'error')
    } finally {
      setProgress(null)
      reload()
    }
  }

  const onDrop = async (e: DragEvent): Promise<void> => {
    e.preventDefault()
    setDragging(false)
    if (e.dataTransfer != null) await doUpload(await collectDrop(e.dataTransfer))
  }
  const onPick = (e: Event): void => {
    const input = e.currentTarget as HTMLInputElement
    const items = [...(input.files ?? [])].map(f => ({ path: f.webkitRelativePath !== '' ? f.webkitRelativePath : f.name, file: f }))
    input.value = ''
    void doUpload(items)
  }

  const mkdir = async (): Promise<void> => {
    const a = await ask({ title: 'New folder', fields: [{ name: 'name', label: 'Folder name' }], ok: 'Create' })
    if (a == null || a.name.trim() === '') return
    if (await act('New folder', async () => await call('files/mkdir', { arg: join(path, a.name.trim()), parents: true }), `Created ${a.name.trim()}`)) reload()
  }
  const importCid = async (): Promise<void> => {
    const a = await ask({
      title: 'Import from IPFS',
      message: <p>Copy a CID or an <code>/ipfs/</code> or <code>/ipns/</code> path into this folder (<code>files cp</code>).</p>,
      fields: [{ name: 'src', label: 'CID or path', placeholder: 'bafy… or /ipfs/…' }, { name: 'name', label: 'Name in this folder', required: false, placeholder: 'defaults to the CID' }],
      ok: 'Import'
    })
    if (a == null || a.src.trim() === '') return
    const src = a.src.trim().startsWith('/') ? a.src.trim() : `/ipfs/${a.src.trim()}`
    const name = a.name.trim() !== '' ? a.name.trim() : src.split('/').filter(s => s !== '').pop() as string
    if (await act('Import', async () => await call('files/cp', { arg: [src, join(path, name)] }), `Imported ${name}`)) reload()
  }

  const crumbs = path.split('/').filter(s => s !== '')
  return (
    <div class={`files ${dragging ? 'dragging' : ''}`} data-testid='files-view'
      onDragOver={(e) => { e.preventDefault(); setDragging(true) }} onDragLeave={(e) => { if (e.currentTarget === e.target) setDragging(false) }}
      onDrop={(e) => { void onDrop(e) }}>
      <div class='toolbar'>
        <nav aria-label='Folder path' class='crumbs'>
          <a href={filesHref('/')}>Files</a>
          {crumbs.map((c, i) => <span key={i}> / <a href={filesHref('/' + crumbs.slice(0, i + 1).join('/'))} aria-current={i === crumbs.length - 1 ? 'location' : undefined}>{c}</a></span>)}
        </nav>
        <div class='actions'>
          <button type='button' onClick={() => { void mkdir() }}>New folder</button>
          <button type='button' onClick={() => fileInput.current?.click()}>Upload files</button>
          <button type='button' onClick={() => dirInput.current?.click()}>Upload folder</button>
          <button type='button' onClick={() => { void importCid() }}>Import</button>
          <button type='button' class='ghost' onClick={() => { void inspectPrompt() }}>Inspect CID</button>
        </div>
        <input ref={fileInput} type='file' multiple hidden onChange={onPick} data-testid='file-input' />
        <input ref={dirInput} type='file' multiple hidden onChange={onPick} data-testid='dir-input' {...{ webkitdirectory: true }} />
      </div>
      {progress != null && (
        <div class='progress' role='status'>
          <span>{progress.label}</span>
          <progress max={progress.total} value={progress.sent} aria-label='Upload progress' />
          <span>{Math.round((progress.sent / progress.total) * 100)}%</span>
        </div>
      )}
      <p class='drop-hint muted'>Drop files or folders anywhere here to upload them to <code>{path}</code>.</p>
      <ErrorBox error={list.error} what='Listing' />
      {list.data != null && (
        list.data.length === 0
          ? <p class='empty'>This folder is empty.</p>
          : (
            <div class='table-wrap'>
              <table class='list' data-testid='files'>
                <thead><tr><th scope='col'>Name</th><th scope='col' class='num'>Size</th><th scope='col' class='wide-only'>CID</th><th scope='col'><span class='sr'>Actions</span></th></tr></thead>
                <tbody>
                  {[...list.data].sort((a, b) => b.Type - a.Type || a.Name.localeCompare(b.Name)).map(e => (
                    <Row key={e.Name} e={e} dir={path} pinned={pins.data?.has(e.Hash) === true} gw={gw.data} reload={reload} />
                  ))}
                </tbody>
              </table>
            </div>)
      )}
    </div>
  )
}

async function inspectPrompt (): Promise<void> {
  const a = await ask({ title: 'Inspect a CID', fields: [{ name: 'cid', label: 'CID or /ipfs/ path' }], ok: 'Inspect' })
  if (a != null && a.cid.trim() !== '') location.hash = '#/inspect/' + a.cid.trim().replace(/^\/ipfs\//, '')
}

/** A file streams from the gateway straight to disk (?download=true); a folder comes as a tar from `get`. */
export async function download (cid: string, name: string, dir: boolean, gw?: string): Promise<void> {
  const a = document.createElement('a')
  if (!dir && gw != null) {
    a.href = `${gw}/ipfs/${cid}?filename=${encodeURIComponent(name)}&download=true`
  } else {
    const blob = dir ? await bytes('get', { arg: `/ipfs/${cid}`, archive: true }) : await bytes('cat', { arg: `/ipfs/${cid}` })
    a.href = URL.createObjectURL(blob)
    a.download = dir ? `${name}.tar` : name
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000)
  }
  document.body.append(a)
  a.click()
  a.remove()
}

function Row ({ e, dir, pinned, gw, reload }: { e: Entry, dir: string, pinned: boolean, gw?: string, reload: () => void }): JSX.Element {
  const full = join(dir, e.Name)
  const isDir = e.Type === 1
  const menu = useRef<HTMLDetailsElement>(null)
  const run = (fn: () => Promise<void>) => () => { if (menu.current != null) menu.current.open = false; void fn() }
  const rename = async (): Promise<void> => {
    const a = await ask({ title: `Rename ${e.Name}`, fields: [{ name: 'name', label: 'New name', value: e.Name }], ok: 'Rename' })
    if (a == null || a.name.trim() === '' || a.name === e.Name) return
    if (await act('Rename', async () => await call('files/mv', { arg: [full, join(dir, a.name.trim())] }), `Renamed to ${a.name.trim()}`)) reload()
  }
  const move = async (): Promise<void> => {
    const a = await ask({ title: `Move ${e.Name}`, message: <p>Destination folder or full path in MFS.</p>, fields: [{ name: 'to', label: 'Move to', value: dir }], ok: 'Move' })
    if (a == null || a.to.trim() === '') return
    let to = a.to.trim()
    if (!to.startsWith('/')) to = join(dir, to)
    const dest = await call<{ Type: string }>('files/stat', { arg: to }).then(s => s.Type === 'directory' ? join(to, e.Name) : to, () => to)
    if (await act('Move', async () => await call('files/mv', { arg: [full, dest] }), `Moved to ${dest}`)) reload()
  }
  const remove = async (): Promise<void> => {
    if (!await confirmDialog(`Delete ${e.Name}?`, <p>This removes <code>{full}</code> from your files. Pinned content stays in the repo until unpinned.</p>, 'Delete', true)) return
    if (await act('Delete', async () => await call('files/rm', { arg: full, recursive: true }), `Deleted ${e.Name}`)) reload()
  }
  const pin = async (): Promise<void> => {
    const ok = pinned
      ? await act('Unpin', async () => await call('pin/rm', { arg: e.Hash }), `Unpinned ${e.Name}`)
      : await act('Pin', async () => await call('pin/add', { arg: e.Hash, name: e.Name }), `Pinned ${e.Name}`)
    if (ok) reload()
  }
  const preview = async (): Promise<void> => { await showDialog(e.Name, <Preview cid={e.Hash} name={e.Name} size={e.Size} gw={gw} />) }
  return (
    <tr>
      <td class='name'>
        {isDir
          ? <a href={filesHref(full)} class='entry dir'><span aria-hidden='true' class='icon'>▸</span>{e.Name}</a>
          : <button type='button' class='link entry file' onClick={() => { void preview() }}><span aria-hidden='true' class='icon'>·</span>{e.Name}</button>}
        {pinned && <span class='badge' title='Pinned recursively'>pinned</span>}
      </td>
      <td class='num'>{isDir ? '' : formatBytes(e.Size)}</td>
      <td class='mono wide-only'><a href={'#/inspect/' + e.Hash} title={e.Hash}>{short(e.Hash)}</a></td>
      <td class='row-actions'>
        <details class='menu' ref={menu}>
          <summary aria-label={`Actions for ${e.Name}`}>⋯</summary>
          <div class='menu-list' role='group' aria-label={`Actions for ${e.Name}`}>
            {!isDir && <button type='button' onClick={run(preview)}>Preview</button>}
            <button type='button' onClick={run(async () => { await act('Download', async () => await download(e.Hash, e.Name, isDir, gw)) })}>Download</button>
            <button type='button' onClick={run(rename)}>Rename</button>
            <button type='button' onClick={run(move)}>Move</button>
            <button type='button' onClick={run(async () => { location.hash = '#/inspect/' + e.Hash })}>Inspect</button>
            <button type='button' onClick={run(pin)}>{pinned ? 'Unpin' : 'Pin'}</button>
            <button type='button' onClick={run(async () => { await navigator.clipboard?.writeText(e.Hash); toast('CID copied') })}>Copy CID</button>
            <button type='button' class='danger-text' onClick={run(remove)}>Delete</button>
          </div>
        </details>
      </td>
    </tr>
  )
}

