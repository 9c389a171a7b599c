import { promises as fs } from 'node:fs'
import path from 'node:path'

/** Write a file so that a crash leaves either the old or the new content: temp file, fsync, rename, fsync dir. */
export async function writeFileAtomic (file: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  // node:crypto loads on first use (the CLI's start-up does not need it)
  const { randomBytes } = await import('node:crypto')
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`)
  const fh = await fs.open(tmp, 'w', mode)
  try {
    await fh.writeFile(data)
    await fh.sync()
  } finally {
    await fh.close()
  }
  try {
    await fs.rename(tmp, file)
  } catch (err) {
    await fs.rm(tmp, { force: true })
    throw err
  }
  await syncDir(path.dirname(file))
}

export async function syncDir (dir: string): Promise<void> {
  let fh
  try {
    fh = await fs.open(dir, 'r')
    await fh.sync()
  } catch {
    // some filesystems refuse fsync on directories
  } finally {
    await fh?.close()
  }
}

export async function exists (p: string): Promise<boolean> {
  try { await fs.access(p); return true } catch { return false }
}
