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

  add (command: string, args: string[], options: Record<string, unknown>): { finish: () => void } {
    if (this.entries.length >= this.pruneAt) {
      this.prune()
      this.pruneAt = Math.max(1024, this.entries.length * 2)
    }
    const entry: Entry = { id: this.next++, command, args, options, start: Date.now() }
    this.entries.push(entry)
    return { finish: () => { entry.end = Date.now() } }
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
