// CLI helpers shared by cat and get: a byte progress bar on stderr (Kubo's pb/v3 bar with
// cmdenv.ProgressBarFullTemplate: counters, bar, speed, percent, ETA) and back-pressured writes.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB']

/** pb's byte counters: "1.50 MiB". */
export function humanBytes (n: number): string {
  let i = 0
  let v = n
  while (v >= 1024 && i < UNITS.length - 1) { v /= 1024; i++ }
  return i === 0 ? `${n} B` : `${v.toFixed(2)} ${UNITS[i]}`
}

function humanDuration (secs: number): string {
  const s = Math.max(0, Math.round(secs))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  return h > 0 ? `${h}h${m}m${s % 60}s` : m > 0 ? `${m}m${s % 60}s` : `${s}s`
}

export interface ProgressBar {
  add: (n: number) => void
  /** draw the final state and clear the line (Kubo's clearlineReader on EOF) */
  finish: () => void
}

export function createProgressBar (out: NodeJS.WritableStream, total: number, width = 40): ProgressBar {
  const started = Date.now()
  let current = 0
  let drawn = 0
  const draw = (force: boolean): void => {
    const now = Date.now()
    if (!force && now - drawn < 200) return
    drawn = now
    const elapsed = Math.max((now - started) / 1000, 0.001)
    const speed = current / elapsed
    const fraction = total > 0 ? Math.min(current / total, 1) : 0
    const filled = Math.round(fraction * width)
    const bar = total > 0
      ? '[' + '='.repeat(Math.max(filled - 1, 0)) + (filled > 0 ? (fraction >= 1 ? '=' : '>') : '') + '-'.repeat(width - filled) + ']'
      : ''
    const counters = total > 0 ? `${humanBytes(current)} / ${humanBytes(total)}` : humanBytes(current)
    const pct = total > 0 ? `${(fraction * 100).toFixed(2)}%` : ''
    const eta = total > 0 && speed > 0 ? `ETA ${humanDuration((total - current) / speed)}` : 'ETA ?'
    out.write(`\r${counters} ${bar} ${humanBytes(Math.round(speed))}/s ${pct} ${eta}`)
  }
  draw(true)
  return {
    add: (n) => { current += n; draw(false) },
    finish: () => { draw(true); out.write('\u001b[2K\r') }
  }
}

/** Write and wait for the stream to take more. */
export async function writeTo (stream: NodeJS.WritableStream, data: Uint8Array | string): Promise<void> {
  if (stream.write(data)) return
  await new Promise<void>(resolve => stream.once('drain', () => { resolve() }))
}

/** Kubo cmdenv.ShouldShowProgress: the option when given, else whether stderr is a terminal. */
export const showProgress = (option: boolean | undefined, isTTY: boolean): boolean => option ?? isTTY
