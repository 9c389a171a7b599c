// Turning picked or dropped files and folders into the multipart body `add` takes: directory parts first
// (parents before children), then files, each named by its path relative to the drop (URL-escaped, as
// Kubo's clients do).

export interface Upload { path: string, file?: File }

/** Files and folders from a drop; folders are walked with the File System entries API. */
export async function collectDrop (dt: DataTransfer): Promise<Upload[]> {
  const entries = [...dt.items].map(i => i.webkitGetAsEntry?.() ?? null)
  if (entries.length === 0 || entries.some(e => e == null)) return [...dt.files].map(f => ({ path: f.name, file: f }))
  const out: Upload[] = []
  const walk = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    const p = prefix + entry.name
    if (entry.isFile) {
      const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject))
      out.push({ path: p, file })
      return
    }
    out.push({ path: p })
    const reader = (entry as FileSystemDirectoryEntry).createReader()
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject))
      if (batch.length === 0) break
      for (const child of batch) await walk(child, p + '/')
    }
  }
  for (const e of entries) await walk(e as FileSystemEntry, '')
  return out
}

export function uploadForm (items: Upload[]): FormData {
  const dirs = new Set<string>()
  for (const i of items) {
    const parts = i.path.split('/')
    for (let n = 1; n < (i.file == null ? parts.length + 1 : parts.length); n++) dirs.add(parts.slice(0, n).join('/'))
  }
  const form = new FormData()
  for (const d of [...dirs].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b))) {
    form.append('file', new Blob([], { type: 'application/x-directory' }), encodeURIComponent(d))
  }
  for (const i of items) if (i.file != null) form.append('file', i.file, encodeURIComponent(i.path))
  return form
}
