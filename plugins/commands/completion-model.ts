// The command tree as shell completion scripts need it (kubo core/commands/completion.go), and the
// three script writers with the command that serves each. The scripts are our own; they complete the
// same things Kubo's do.
import type { Registry, TreeNode } from '../../registry/registry.js'
import type { CommandSpec, OptionSpec } from '../../registry/types.js'
import { defineCommand } from '../../registry/define.js'

/** the program the scripts complete */
export const PROGRAM = 'tsipfs'

interface CompletionOption { long: string, short?: string, description: string }

export interface CompletionCommand {
  name: string
  /** path words from the root, e.g. ['pin', 'add'] */
  path: string[]
  description: string
  subcommands: CompletionCommand[]
  /** bool options */
  flags: CompletionOption[]
  /** options that take a value */
  options: CompletionOption[]
}

const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

function toCompletion (node: TreeNode, own: Record<string, OptionSpec>, description: string): CompletionCommand {
  const out: CompletionCommand = { name: node.name, path: [...node.path], description, subcommands: [], flags: [], options: [] }
  for (const [long, spec] of Object.entries(own)) {
    const short = [long, ...(spec.aliases ?? [])].find(n => n.length === 1)
    ;(spec.type === 'bool' ? out.flags : out.options).push({ long, short, description: spec.description })
  }
  out.subcommands = [...node.children.values()]
    .sort((a, b) => byteOrder(a.name, b.name))
    .map(c => toCompletion(c, { ...c.group?.options, ...c.command?.options }, c.command?.description ?? c.group?.description ?? ''))
  return out
}

/** The CLI's whole tree (CLI-only commands included: the scripts are for the CLI). */
export function completionTree (registry: Registry): CompletionCommand {
  return toCompletion(registry.root, registry.globalOptions, '')
}

/** bash $'…' quoting */
const ansiC = (s: string): string => s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")
const words = (list: string[], suffix: string): string => `$'${list.map(w => ansiC(w) + suffix).join('\\n')}\\n'`

function bashCommand (cmd: CompletionCommand, indent: string): string {
  const i = indent
  const lines: string[] = []
  lines.push(`${i}while [[ \${index} -lt \${COMP_CWORD} ]]; do`)
  lines.push(`${i}  case "\${COMP_WORDS[index]}" in`)
  lines.push(`${i}    -*)`)
  lines.push(`${i}      index=$((index + 1))`)
  lines.push(`${i}      continue`)
  lines.push(`${i}      ;;`)
  for (const sub of cmd.subcommands) {
    lines.push(`${i}    '${sub.name.replace(/'/g, "'\\''")}')`)
    lines.push(`${i}      index=$((index + 1))`)
    lines.push(bashCommand(sub, i + '      '))
    lines.push(`${i}      return 0`)
    lines.push(`${i}      ;;`)
  }
  lines.push(`${i}  esac`)
  lines.push(`${i}  break`)
  lines.push(`${i}done`)
  lines.push(`${i}if [[ "\${word}" == -* ]]; then`)
  const shortFlags = cmd.flags.flatMap(f => f.short != null ? [`-${f.short}`] : []).sort(byteOrder)
  const shortOpts = cmd.options.flatMap(f => f.short != null ? [`-${f.short}`] : []).sort(byteOrder)
  const longFlags = cmd.flags.map(f => `--${f.long}`).sort(byteOrder)
  const longOpts = cmd.options.map(f => `--${f.long}`).sort(byteOrder)
  if (shortFlags.length > 0) lines.push(`${i}  _${PROGRAM}_compgen -W ${words(shortFlags, ' ')} -- "\${word}"`)
  if (shortOpts.length > 0) lines.push(`${i}  _${PROGRAM}_compgen -S = -W ${words(shortOpts, '')} -- "\${word}"`)
  if (longFlags.length > 0) lines.push(`${i}  _${PROGRAM}_compgen -W ${words(longFlags, ' ')} -- "\${word}"`)
  if (longOpts.length > 0) lines.push(`${i}  _${PROGRAM}_compgen -S = -W ${words(longOpts, '')} -- "\${word}"`)
  lines.push(`${i}  return 0`)
  lines.push(`${i}fi`)
  if (cmd.subcommands.length > 0) {
    lines.push(`${i}while [[ \${index} -lt \${COMP_CWORD} ]]; do`)
    lines.push(`${i}  [[ "\${COMP_WORDS[index]}" != -* ]] && argidx=$((argidx + 1))`)
    lines.push(`${i}  index=$((index + 1))`)
    lines.push(`${i}done`)
    lines.push(`${i}if [[ \${argidx} -eq 0 ]]; then`)
    lines.push(`${i}  _${PROGRAM}_compgen -W ${words(cmd.subcommands.map(s => s.name), ' ')} -- "\${word}"`)
    lines.push(`${i}fi`)
  }
  return lines.join('\n')
}

function bashBody (root: CompletionCommand): string {
  return `_${PROGRAM}_compgen() {
  local oldifs="$IFS"
  IFS=$'\\n'
  while read -r line; do
    COMPREPLY+=("$line")
  done < <(compgen "$@")
  IFS="$oldifs"
}

_${PROGRAM}() {
  COMPREPLY=()
  local index=1
  local argidx=0
  local word="\${COMP_WORDS[COMP_CWORD]}"
${bashCommand(root, '  ')}
}
complete -o nosort -o nospace -o default -F _${PROGRAM} ${PROGRAM}
# with \`alias ipfs=${PROGRAM}\` (bash does not expand aliases to find a completion) ipfs completes the same way
if [[ "$(alias ipfs 2>/dev/null)" == *${PROGRAM}* ]]; then
  complete -o nosort -o nospace -o default -F _${PROGRAM} ipfs
fi
`
}

export function bashCompletion (root: CompletionCommand): string {
  return `#!/bin/bash
# bash completion for ${PROGRAM}: source this file, or put it in /etc/bash_completion.d
${bashBody(root)}`
}

export function zshCompletion (root: CompletionCommand): string {
  return `#compdef ${PROGRAM}
# zsh completion for ${PROGRAM} (through bashcompinit): source this file from ~/.zshrc
autoload -U +X bashcompinit && bashcompinit
${bashBody(root)}`
}

/** fish single-quoted string */
const fishQuote = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`

function fishCommand (cmd: CompletionCommand, out: string[]): void {
  const at = cmd.path.map(fishQuote).join(' ')
  const seen = `__fish_${PROGRAM}_seen_path${at !== '' ? ' ' + at : ''}`
  if (cmd.subcommands.length === 0) out.push(`complete -c ${PROGRAM} -n ${fishQuote(seen)} -F`)
  const opt = (o: CompletionOption, takesValue: boolean): string =>
    `complete -c ${PROGRAM} -n ${fishQuote(seen)}${takesValue ? ' -r' : ''}${o.short != null ? ` -s ${fishQuote(o.short)}` : ''} -l ${fishQuote(o.long)} -d ${fishQuote(o.description)}`
  for (const f of cmd.flags) out.push(opt(f, false))
  for (const o of cmd.options) out.push(opt(o, true))
  for (const sub of cmd.subcommands) {
    out.push('')
    out.push(`# ${[PROGRAM, ...sub.path].join(' ')}`)
    out.push(`complete -c ${PROGRAM} -n ${fishQuote(`__fish_${PROGRAM}_at_path${at !== '' ? ' ' + at : ''}`)} -a ${fishQuote(sub.name)} -d ${fishQuote(sub.description)}`)
    fishCommand(sub, out)
  }
}

export function fishCompletion (root: CompletionCommand): string {
  const out: string[] = [`# fish completion for ${PROGRAM}: put it in ~/.config/fish/completions/${PROGRAM}.fish
# (\`alias ipfs ${PROGRAM}\` makes a function that wraps ${PROGRAM}: ipfs then completes as ${PROGRAM})

# true when every given word appears among the words typed so far
function __fish_${PROGRAM}_seen_path
    set -l typed (commandline -poc)
    set -e typed[1]
    for w in $argv
        if not contains -- $w $typed
            return 1
        end
    end
    return 0
end

# true when the words typed so far (flags aside) are exactly the given path
function __fish_${PROGRAM}_at_path
    set -l typed (commandline -poc)
    set -e typed[1]
    set -l want $argv
    for w in $typed
        switch $w
            case '-*'
                continue
        end
        if test (count $want) -eq 0; or test "$want[1]" != "$w"
            return 1
        end
        set -e want[1]
    end
    test (count $want) -eq 0
end

complete -c ${PROGRAM} --keep-order --no-files
`]
  fishCommand(root, out)
  return out.join('\n') + '\n'
}

/** `ipfs commands completion <shell>` (NoRemote): the script `render` makes of the whole command tree. */
export function completionCommand (shell: 'bash' | 'zsh' | 'fish', render: (root: CompletionCommand) => string): CommandSpec {
  return defineCommand({
    path: ['commands', 'completion', shell],
    description: `Generate ${shell} shell completions.`,
    help: `Generates command completions for the ${shell} shell.`,
    http: false,
    // runs in the CLI's process whether or not a daemon runs (Kubo's NoRemote commands that need no repo)
    noRepo: true,
    output: 'bytes',
    contentType: 'text/plain',
    run: ({ deps: { registry } }) => new TextEncoder().encode(render(completionTree(registry)))
  })
}
