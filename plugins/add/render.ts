// The text side of `ipfs add`: Go's `%s` rendering for ?encoding=text (add has no text encoder) and
// the CLI's PostRun (added lines, -q, -Q, progress bar on stderr).
import type { Outcome } from '../../registry/execute.js'
import { escNonPrint } from '../../core/go/strings.js'
import type { CliIO } from '../../registry/types.js'
import type { AddOutput } from './output.js'

/** Go's IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */

export { escNonPrint }

/** Go's generic text encoder: `fmt.Fprintf(w, "%s", &AddEvent{…})`, no newline. */
export function goText (v: AddOutput): string {
  return `&{${v.Name} ${v.Hash ?? ''} %!s(int64=${v.Bytes ?? 0}) ${v.Size ?? ''} ${v.Mode ?? ''} %!s(int64=${v.Mtime ?? 0}) %!s(int=${v.MtimeNsecs ?? 0})}`
}

/** pb/v3 byte counter: `512 B`, `1.50 KiB`, `3.00 MiB`. */
export function formatBytes (n: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB']
  if (n < 1024) return `${n} B`
  let v = n
  let i = -1
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++ }
  return `${v.toFixed(2)} ${units[i]}`
}

/** A pb/v3-style progress bar on stderr (Kubo's add bar: counters, bar, speed, percent, ETA). */
export class ProgressBar {
  private current = 0
  private total = 0
  private readonly started = Date.now()
  private lastDraw = 0

  constructor (private readonly out: NodeJS.WritableStream, total?: number, private readonly width = 40) {
    if (total != null && total > 0) this.total = total
  }

  get value (): number { return this.current }

  add (delta: number): void { this.current += delta }

  setTotal (total: number): void { this.total = total }

  private line (): string {
    const secs = Math.max((Date.now() - this.started) / 1000, 0.001)
    const speed = this.current > 0 ? `${formatBytes(Math.round(this.current / secs))}/s` : '?/s'
    if (this.total <= 0) return `${formatBytes(this.current)} ${speed}`
    const frac = Math.min(this.current / this.total, 1)
    const filled = Math.floor(frac * this.width)
    const bar = '[' + '-'.repeat(Math.max(filled - 1, 0)) + (filled > 0 ? (frac >= 1 ? '-' : '>') : '') + '_'.repeat(this.width - filled) + ']'
    const rate = this.current / secs
    const eta = frac >= 1 ? `${Math.round(secs)}s` : rate > 0 ? `ETA ${Math.ceil((this.total - this.current) / rate)}s` : 'ETA ?'
    return `${formatBytes(this.current)} / ${formatBytes(this.total)} ${bar} ${speed} ${(frac * 100).toFixed(2)}% ${eta}`
  }

  /** redraw (at most every 100 ms unless forced) */
  draw (force = false): void {
    const now = Date.now()
    if (!force && now - this.lastDraw < 100) return
    this.lastDraw = now
    this.out.write(`\r${this.line()}`)
  }

  /** clear the line before a stdout line is written */
  clear (): void { this.out.write('\x1b[2K\r') }

  finish (): void {
    if (this.total === 0 && this.current !== 0) this.total = this.current
    this.draw(true)
    this.out.write('\n')
  }
}

function write (stream: NodeJS.WritableStream, data: string): Promise<void> {
  return new Promise(resolve => { if (stream.write(data)) resolve(); else stream.once('drain', () => resolve()) })
}

export interface RenderOptions {
  quiet?: boolean
  quieter?: boolean
  progress?: boolean
}

/** Kubo's add PostRun: what the CLI prints for the stream of add events. */
export async function renderAdd (outcome: Outcome, options: RenderOptions, io: CliIO): Promise<void> {
  if (outcome.kind !== 'ndjson') return
  const quieter = options.quieter === true
  const quiet = options.quiet === true || quieter
  const progress = options.progress === true
  const bar = progress ? new ProgressBar(io.stderr, io.inputSize) : undefined
  bar?.draw(true)
  let lastHash = ''
  let lastFile = ''
  let prevFiles = 0
  let lastBytes = 0
  try {
    for await (const item of outcome.items) {
      const ev = item as AddOutput
      if (ev.Hash != null && ev.Hash !== '') {
        lastHash = ev.Hash
        if (quieter) continue
        bar?.clear()
        await write(io.stdout, quiet ? `${ev.Hash}\n` : `added ${ev.Hash} ${escNonPrint(ev.Name)}\n`)
      } else {
        if (bar == null) continue
        const bytes = ev.Bytes ?? 0
        if (lastFile === '') lastFile = ev.Name
        if (ev.Name !== lastFile || bytes < lastBytes) {
          prevFiles += lastBytes
          lastFile = ev.Name
        }
        lastBytes = bytes
        bar.add(prevFiles + lastBytes - bar.value)
      }
      bar?.draw()
    }
  } finally {
    // Kubo prints the last hash when the stream closes, even after an error
    if (quieter) await write(io.stdout, `${lastHash}\n`)
    bar?.finish()
  }
}
