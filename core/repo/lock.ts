// repo.lock: one process at a time, shared with Kubo. Kubo (go-fs-lock) holds a POSIX record lock (fcntl F_SETLK)
// on an empty repo.lock and removes the file when it closes the repo. tsipfs takes an open-file-description
// write lock on the same file (fs-native-extensions: fcntl F_OFD_SETLK on Linux), which conflicts with Kubo's,
// so a Kubo daemon and a tsipfs daemon refuse each other's repo, and a crashed holder's lock goes with its process.
// Where the native lock cannot load, the file holds the owner's PID and a lock whose owner is gone is taken over.
import { promises as fs } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { RepoLockedError } from '../errors.js'

export interface RepoLock { release: () => Promise<void> }

interface NativeLocks { tryLock: (fd: number) => boolean, unlock: (fd: number) => void }

let native: NativeLocks | null | undefined
function nativeLocks (): NativeLocks | null {
  if (native !== undefined) return native
  try {
    native = createRequire(import.meta.url)('fs-native-extensions') as NativeLocks
  } catch {
    native = null
  }
  return native
}

const lockFile = (repoPath: string): string => path.join(repoPath, 'repo.lock')
const lockedError = (file: string): RepoLockedError => new RepoLockedError(`lock ${file}: someone else has the lock`)

const alive = (pid: number): boolean => {
  if (!Number.isInteger(pid) || pid <= 0) return false
  if (pid === process.pid) return true
  try { process.kill(pid, 0); return true } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM' }
}

/** Whether a process (Kubo, a tsipfs daemon, or this one) holds the repo open. */
export async function repoLocked (repoPath: string): Promise<boolean> {
  const file = lockFile(repoPath)
  const locks = nativeLocks()
  if (locks == null) {
    const text = await fs.readFile(file, 'utf8').catch(() => undefined)
    return text != null && alive(Number.parseInt(text.trim(), 10))
  }
  const fh = await fs.open(file, 'r+').catch(() => undefined) // a write lock needs a writable descriptor
  if (fh == null) return false
  try {
    if (!locks.tryLock(fh.fd)) return true
    locks.unlock(fh.fd)
    return false
  } finally {
    await fh.close()
  }
}

export async function acquireLock (repoPath: string): Promise<RepoLock> {
  const file = lockFile(repoPath)
  const locks = nativeLocks()
  if (locks == null) return await acquirePidLock(file, repoPath)
  const fh = await fs.open(file, 'a+', 0o644)
  let held = false
  try {
    if (!locks.tryLock(fh.fd)) throw lockedError(file)
    held = true
    // empty, as Kubo leaves it: Kubo refuses to lock a repo.lock of non-zero size (one an older tsipfs left with a PID)
    await fh.truncate(0)
  } catch (err) {
    if (held) locks.unlock(fh.fd)
    await fh.close()
    throw err
  }
  let released = false
  return {
    release: async () => {
      if (released) return
      released = true
      await fs.rm(file, { force: true })
      locks.unlock(fh.fd)
      await fh.close()
    }
  }
}

async function acquirePidLock (file: string, repoPath: string): Promise<RepoLock> {
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
      if (await repoLocked(repoPath)) throw lockedError(file)
      await fs.rm(file, { force: true }) // stale: its process is gone
    }
  }
  throw lockedError(file)
}
