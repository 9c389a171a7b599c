// A file's preview through the gateway: images as <img>, text as its first 64 KiB.
import type { JSX } from 'preact'
import { bytes, errorText } from '../api'
import { formatBytes, useApi } from '../ui'
import { download } from './files'

const IMAGE = /\.(png|jpe?g|gif|webp|avif|svg|bmp|ico)$/i
const LIMIT = 64 * 1024

async function loadText (cid: string, gw?: string): Promise<{ text?: string, binary: boolean }> {
  let buf: ArrayBuffer
  if (gw != null) {
    const res = await fetch(`${gw}/ipfs/${cid}`, { headers: { Range: `bytes=0-${LIMIT - 1}` } })
    if (!res.ok) throw new Error(`gateway answered ${res.status}`)
    buf = await res.arrayBuffer()
  } else {
    buf = await (await bytes('cat', { arg: `/ipfs/${cid}`, length: LIMIT })).arrayBuffer()
  }
  const u8 = new Uint8Array(buf.slice(0, LIMIT))
  if (u8.subarray(0, 4096).includes(0)) return { binary: true }
  return { text: new TextDecoder('utf-8', { fatal: false }).decode(u8), binary: false }
}

export function Preview ({ cid, name, size, gw }: { cid: string, name: string, size: number, gw?: string }): JSX.Element {
  const image = IMAGE.test(name)
  const text = useApi(async () => image ? undefined : await loadText(cid, gw), [cid, gw])
  return (
    <div class='preview' data-testid='preview'>
      <p class='muted mono wrap'>{cid} · {formatBytes(size)}</p>
      {image
        ? gw != null
          ? <img src={`${gw}/ipfs/${cid}?filename=${encodeURIComponent(name)}`} alt={`Preview of ${name}`} />
          : <p class='note'>No gateway address is configured (<code>Addresses.Gateway</code>), so images cannot be previewed.</p>
        : text.error != null
          ? <p class='error'>Preview failed: {errorText(text.error)}</p>
          : text.data == null
            ? <p class='muted'>Loading…</p>
            : text.data.binary
              ? <p class='note'>Binary file: no preview.</p>
              : <pre class='text-preview' tabIndex={0}>{text.data.text}{size > LIMIT ? '\n…' : ''}</pre>}
      <p><button type='button' onClick={() => { void download(cid, name, false, gw) }}>Download</button>
        {gw != null && <> <a href={`${gw}/ipfs/${cid}?filename=${encodeURIComponent(name)}`} target='_blank' rel='noopener noreferrer'>Open on the gateway</a></>}</p>
    </div>
  )
}
