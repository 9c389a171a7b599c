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

const NO_ARGS: string[] = Object.freeze([]) as unknown as string[]
const NO_OPTIONS: Record<string, unknown> = Object.freeze({})

/**
 * A minute of requests (Kubo's default keep time) is tens of thousands of entries, so each is kept small (~270 ->
 * ~150 bytes with its options): one shape with `end` in it, times as ms since the log began (small integers,
 * not boxed numbers), command names and empty args/options shared.
 */
class Entry {
  /** -1 while active */
  end = -1
  constructor (readonly id: number, readonly command: string, readonly args: string[], readonly options: Record<string, unknown>, readonly start: number) {}
}

function isEmpty (o: Record<string, unknown>): boolean {
  for (const _ in o) return false
  return true
}

export class RequestLog {
  private next = 0
  private readonly entries: Entry[] = []
  /** how long finished requests are kept, in ms (diag/cmds/set-time); Kubo's default is 1 minute */
  keepMs = 60_000

  /** entries at which add() drops the expired ones (so an unread log does not grow without bound) */
  private pruneAt = 1024

  /** the times of entries are ms since this */
  private readonly epoch = Date.now()
  /** one string per command name (the server joins the path per request) */
  private readonly names = new Map<string, string>()

  /** drops the expired ones once requests stop coming (a burst of 30,000 block/put kept ~8 MiB of heap until as many more came) */
  private timer: ReturnType<typeof setTimeout> | undefined

  add (command: string, args: string[], options: Record<string, unknown>): { finish: () => void } {
    if (this.entries.length >= this.pruneAt) {
      this.prune()
      this.pruneAt = Math.max(1024, this.entries.length * 2)
    }
    let name = this.names.get(command)
    if (name === undefined) this.names.set(command, name = command)
    const entry = new Entry(this.next++, name, args.length === 0 ? NO_ARGS : args, isEmpty(options) ? NO_OPTIONS : options, Date.now() - this.epoch)
    this.entries.push(entry)
    return { finish: () => { entry.end = Math.max(0, Date.now() - this.epoch); this.schedule() } }
  }

  /** a prune keepMs after now (at most one pending; unref'd: it never keeps the process up) */
  private schedule (): void {
    if (this.timer !== undefined) return
    const delay = Math.min(Math.max(this.keepMs, 0) + 1000, 2 ** 31 - 1)
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.prune()
      this.pruneAt = Math.max(1024, this.entries.length * 2)
      if (this.entries.some(e => e.end >= 0)) this.schedule()
    }, delay)
    this.timer.unref?.()
  }

  /** drop the requests that finished more than keepMs ago */
  private prune (): void {
    const cutoff = Date.now() - this.epoch - this.keepMs
    let kept = 0
    for (const e of this.entries) if (e.end < 0 || e.end >= cutoff) this.entries[kept++] = e
    this.entries.length = kept
  }

  list (): RequestLogEntry[] {
    this.prune()
    return this.entries.map(e => ({
      StartTime: new Date(this.epoch + e.start).toISOString(),
      EndTime: e.end >= 0 ? new Date(this.epoch + e.end).toISOString() : '0001-01-01T00:00:00Z',
      Active: e.end < 0,
      Command: e.command,
      Options: e.options,
      Args: e.args,
      ID: e.id
    }))
  }

  /** drop every finished request */
  clear (): void {
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i].end >= 0) this.entries.splice(i, 1)
  }
}
