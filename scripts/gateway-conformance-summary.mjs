#!/usr/bin/env node
// Summarise a `go test -json` report of the gateway conformance suite: leaf tests (those without
// subtests) passed / failed / skipped, written to summary.txt, and the failing ones to failed.txt.
// Usage: node scripts/gateway-conformance-summary.mjs report.json outDir
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const [report, outDir] = process.argv.slice(2)
const final = new Map()
for (const line of readFileSync(report, 'utf8').split('\n')) {
  if (!line.startsWith('{')) continue
  let e
  try { e = JSON.parse(line) } catch { continue }
  if (e.Test == null || !['pass', 'fail', 'skip'].includes(e.Action)) continue
  final.set(e.Test, e.Action)
}
const names = [...final.keys()]
const leaves = names.filter(n => !names.some(m => m.startsWith(n + '/')))
const count = { pass: 0, fail: 0, skip: 0 }
for (const n of leaves) count[final.get(n)]++
const failed = leaves.filter(n => final.get(n) === 'fail').sort()
const text = `gateway-conformance: ${count.pass} passed, ${count.fail} failed, ${count.skip} skipped (leaf tests)\n`
writeFileSync(path.join(outDir, 'summary.txt'), text)
writeFileSync(path.join(outDir, 'failed.txt'), failed.join('\n') + (failed.length > 0 ? '\n' : ''))
writeFileSync(path.join(outDir, 'results.json'), JSON.stringify(Object.fromEntries(leaves.sort().map(n => [n, final.get(n)])), null, 1))
