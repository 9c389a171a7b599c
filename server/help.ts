// Help text generated from the registry (layout after go-ipfs-cmds cli/helptext.go).
import type { Registry, TreeNode } from '../registry/registry.js'
import type { OptionSpec, Status } from '../registry/types.js'

const STATUS_NOTE: Partial<Record<Status, string>> = {
  experimental: 'EXPERIMENTAL, command may change in future releases',
  deprecated: 'DEPRECATED, command will be removed in the future',
  removed: 'REMOVED, command is no longer available'
}

function optionLine (name: string, spec: OptionSpec): string {
  const names = [name, ...(spec.aliases ?? [])].sort((a, b) => a.length - b.length)
    .map(n => n.length === 1 ? `-${n}` : `--${n}`)
  const type = spec.type === 'bool' ? '' : `=<${spec.type}>`
  const def = spec.default !== undefined && !(spec.type === 'bool' && spec.default === false) ? ` Default: ${JSON.stringify(spec.default)}.` : ''
  return `  ${names.join(', ')}${type}`.padEnd(34) + ` - ${spec.description}${def}`
}

export function helpText (registry: Registry, node: TreeNode, mode: 'long' | 'short'): string {
  const cmd = node.command
  const group = node.group
  const name = ['tsipfs', ...node.path].join(' ')
  const description = node === registry.root ? 'Global p2p merkle-dag filesystem.' : registry.description(node)
  const status = registry.status(node.path)
  const lines: string[] = []
  const args = cmd?.args ?? []
  const argText = args.map(a => {
    const base = `<${a.name}>${a.variadic === true ? '...' : ''}`
    return a.required === true ? base : `[${base}]`
  }).join(' ')
  lines.push('USAGE', `  ${name}${argText !== '' ? ' ' + argText : ''} - ${description}`, '')
  const note = STATUS_NOTE[status]
  if (note != null) lines.push(`  ${note}`, '')
  const replacement = cmd?.replacement ?? group?.replacement
  if (status !== 'active' && replacement != null) lines.push(`  ${replacement}`, '')
  if (mode === 'long' && (cmd?.help ?? group?.help) != null) lines.push(...(cmd?.help ?? group?.help ?? '').split('\n').map(l => `  ${l}`), '')
  if (args.length > 0) {
    lines.push('  ARGUMENTS', '')
    for (const a of args) lines.push(`    <${a.name}>${a.variadic === true ? '...' : ''}`.padEnd(34) + ` - ${a.description}`)
    lines.push('')
  }
  const own = node === registry.root ? registry.globalOptions : { ...group?.options, ...cmd?.options }
  const optLines = Object.entries(own).map(([n, s]) => optionLine(n, s))
  if (optLines.length > 0) lines.push('  OPTIONS', '', ...optLines.map(l => '  ' + l), '')
  const children = [...node.children.values()].sort((a, b) => a.name.localeCompare(b.name))
  if (children.length > 0) {
    const sections: Record<string, string[]> = { '': [], experimental: [], deprecated: [], removed: [] }
    for (const c of children) {
      const st = registry.status(c.path)
      const d = registry.description(c)
      sections[st === 'active' ? '' : st].push(`    ${c.name}`.padEnd(24) + ` - ${d}`)
    }
    lines.push('  SUBCOMMANDS')
    for (const [st, list] of Object.entries(sections)) {
      if (list.length === 0) continue
      if (st !== '') lines.push('', `    ${st.toUpperCase()} COMMANDS`)
      lines.push(...list)
    }
    lines.push('', `  For more information about each command, use:`, `  '${name} <subcmd> --help'`, '')
  }
  return lines.join('\n') + '\n'
}
