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

interface Entry { id: number, command: string, args: string[], options: Record<string, unknown>, start: Date, end?: Date }

export class RequestLog {
  private next = 0
  private readonly entries: Entry[] = []
  /** how long finished requests are kept, in ms (diag/cmds/set-time); Kubo's default is 1 minute */
  keepMs = 60_000

  add (command: string, args: string[], options: Record<string, unknown>): { finish: () => void } {
    const entry: Entry = { id: this.next++, command, args, options, start: new Date() }
    this.entries.push(entry)
    return { finish: () => { entry.end = new Date() } }
  }

  list (): RequestLogEntry[] {
    const cutoff = Date.now() - this.keepMs
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i]
      if (e.end != null && e.end.getTime() < cutoff) this.entries.splice(i, 1)
    }
    return this.entries.map(e => ({
      StartTime: e.start.toISOString(),
      EndTime: e.end?.toISOString() ?? '0001-01-01T00:00:00Z',
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
