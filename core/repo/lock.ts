// repo.lock: one process at a time. Node has no flock, so the file holds the owner's PID
// and a lock whose owner is gone is taken over.
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { RepoLockedError } from '../errors.js'

export interface RepoLock { release: () => Promise<void> }

const alive = (pid: number): boolean => {
  if (!Number.isInteger(pid) || pid <= 0) return false
  if (pid === process.pid) return true
  try { process.kill(pid, 0); return true } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM' }
}

/** The PID holding the lock, or undefined when it is free. */
export async function lockOwner (repoPath: string): Promise<number | undefined> {
  const text = await fs.readFile(path.join(repoPath, 'repo.lock'), 'utf8').catch(() => undefined)
  if (text == null) return undefined
  const pid = Number.parseInt(text.trim(), 10)
  return alive(pid) ? pid : undefined
}

export async function acquireLock (repoPath: string): Promise<RepoLock> {
  const file = path.join(repoPath, 'repo.lock')
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fh = await fs.open(file, 'wx', 0o644)
      await fh.writeFile(String(process.pid))
      await fh.close()
      let released = false
      return {
        release: async () => {
          if (released) return
          released = true
          await fs.rm(file, { force: true })
        }
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const owner = await lockOwner(repoPath)
      if (owner != null) throw new RepoLockedError(`lock ${file}: someone else has the lock`)
      await fs.rm(file, { force: true }) // stale: its process is gone
    }
  }
  throw new RepoLockedError(`lock ${file}: someone else has the lock`)
}
