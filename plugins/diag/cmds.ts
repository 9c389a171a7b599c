// ipfs diag cmds (kubo core/commands/active.go): running and recently finished RPC requests.
import { defineCommand } from '../../registry/define.js'
import { formatGoDuration } from '../../core/util/duration.js'
import type { RequestLogEntry } from './output.js'
import { tabwrite } from '../../core/util/tabwriter.js'

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const two = (n: number): string => String(n).padStart(2, '0')

/** Go time.Stamp ("Jan _2 15:04:05") in local time */
export function goStamp (d: Date): string {
  return `${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, ' ')} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`
}

/** Go's %v of the values found in a request's options and arguments */
const goValue = (v: unknown): string => Array.isArray(v) ? `[${v.map(goValue).join(' ')}]` : v === null || v === undefined ? '<nil>' : typeof v === 'object' ? JSON.stringify(v) : String(v)

export function renderRequests (entries: RequestLogEntry[], verbose: boolean, now = Date.now()): string {
  let text = (verbose ? 'ID\t' : '') + 'Command\t' + (verbose ? 'Arguments\tOptions\t' : '') + 'Active\tStartTime\tRunTime\n'
  for (const req of entries) {
    if (verbose) text += `${req.ID}\t`
    text += `${req.Command}\t`
    if (verbose) {
      text += `${goValue(req.Args)}\t[`
      for (const k of Object.keys(req.Options).sort()) text += `${k}=${goValue(req.Options[k])},`
      text += ']\t'
    }
    const start = Date.parse(req.StartTime)
    const live = (req.Active ? now : Date.parse(req.EndTime)) - start
    text += `${String(req.Active)}\t${goStamp(new Date(start))}\t${formatGoDuration(BigInt(Math.round(live * 1e6)))}\n`
  }
  return tabwrite(text, { minwidth: 4, padding: 2 })
}

export const diagCmds = defineCommand({
  path: ['diag', 'cmds'],
  description: 'List commands run on this IPFS node.',
  help: 'Lists running and recently run commands.',
  cli: false,
  options: {
    verbose: { type: 'bool', aliases: ['v'], description: 'Print extra information.' }
  },
  output: 'single',
  run: ({ deps: { requestLog } }): RequestLogEntry[] => requestLog.list(),
  text: (entries, { options }) => renderRequests(entries, options.verbose === true)
})
