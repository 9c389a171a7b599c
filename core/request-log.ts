// Requests seen by the RPC server, for diag/cmds (Kubo's ReqLog).

/** go-ipfs-cmds ReqLogEntry, fields in Go declaration order */
export interface RequestLogEntry {
  StartTime: string
  EndTime: string
  Active: boolean
  Command: string
  Options: Record<string, unknown>
  Args: string[]
  ID: number
}

/** start/end in epoch ms: a minute of requests (Kubo's default keep time) is tens of thousands of entries */
interface Entry { id: number, command: string, args: string[], options: Record<string, unknown>, start: number, end?: number }

export class RequestLog {
  private next = 0
  private readonly entries: Entry[] = []
  /** how long finished requests are kept, in ms (diag/cmds/set-time); Kubo's default is 1 minute */
  keepMs = 60_000

  /** entries at which add() drops the expired ones (so an unread log does not grow without bound) */
  private pruneAt = 1024

  /** drops the expired ones once requests stop coming (a burst of 30,000 block/put kept ~4 MiB of heap until as many more came) */
  private timer: ReturnType<typeof setTimeout> | undefined

  add (command: string, args: string[], options: Record<string, unknown>): { finish: () => void } {
    if (this.entries.length >= this.pruneAt) {
      this.prune()
      this.pruneAt = Math.max(1024, this.entries.length * 2)
    }
    const entry: Entry = { id: this.next++, command, args, options, start: Date.now() }
    this.entries.push(entry)
    return { finish: () => { entry.end = Date.now(); this.schedule() } }
  }

  /** a prune keepMs after now (at most one pending; unref'd: it never keeps the process up) */
  private schedule (): void {
    if (this.timer !== undefined) return
    const delay = Math.min(Math.max(this.keepMs, 0) + 1000, 2 ** 31 - 1)
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.prune()
      this.pruneAt = Math.max(1024, this.entries.length * 2)
      if (this.entries.some(e => e.end != null)) this.schedule()
    }, delay)
    this.timer.unref?.()
  }

  /** drop the requests that finished more than keepMs ago */
  private prune (): void {
    const cutoff = Date.now() - this.keepMs
    let kept = 0
    for (const e of this.entries) if (e.end == null || e.end >= cutoff) this.entries[kept++] = e
    this.entries.length = kept
  }

  list (): RequestLogEntry[] {
    this.prune()
    return this.entries.map(e => ({
      StartTime: new Date(e.start).toISOString(),
      EndTime: e.end != null ? new Date(e.end).toISOString() : '0001-01-01T00:00:00Z',
      Active: e.end == null,
      Command: e.command,
      Options: e.options,
      Args: e.args,
      ID: e.id
    }))
  }

  /** drop every finished request */
  clear (): void {
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i].end != null) this.entries.splice(i, 1)
  }
}
