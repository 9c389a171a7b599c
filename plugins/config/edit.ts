// ipfs config edit (kubo core/commands/config.go configEditCmd): NoRemote, runs $EDITOR on the file.
import { spawn } from 'node:child_process'
import path from 'node:path'
import { RpcError } from '../../core/errors.js'
import { defaultRepoPath } from '../../core/repo/index.js'
import { defineCommand } from '../../registry/define.js'

/** go-shlex Split(s, posix=true): words with '…', "…" and backslash escapes. */
export function splitShellWords (s: string): string[] {
  const words: string[] = []
  let cur = ''
  let inWord = false
  for (let i = 0; i < s.length; i++) {
    const c = s[i]
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (inWord) { words.push(cur); cur = ''; inWord = false }
      continue
    }
    inWord = true
    if (c === '\\') {
      if (i + 1 >= s.length) throw new Error('EOF found after escape character')
      cur += s[++i]
    } else if (c === "'") {
      const end = s.indexOf("'", i + 1)
      if (end < 0) throw new Error('EOF found when expecting closing quote')
      cur += s.slice(i + 1, end)
      i = end
    } else if (c === '"') {
      let j = i + 1
      for (; j < s.length && s[j] !== '"'; j++) {
        if (s[j] === '\\' && j + 1 < s.length && '"\\$`\n'.includes(s[j + 1])) j++
        cur += s[j]
      }
      if (j >= s.length) throw new Error('EOF found when expecting closing quote')
      i = j
    } else {
      cur += c
    }
  }
  if (inWord) words.push(cur)
  return words
}

/** config.Filename: the config file for a repo root and an optional --config-file. */
export function configFilename (root: string, configFile?: string): string {
  if (configFile == null || configFile === '') return path.join(root, 'config')
  if (path.dirname(configFile) === '.') return path.join(root, configFile)
  return configFile
}

async function runEditor (editor: string, file: string): Promise<void> {
  let words: string[]
  try { words = splitShellWords(editor) } catch (err) { throw new RpcError(`cannot parse $EDITOR value: ${(err as Error).message}`) }
  if (words.length === 0) throw new RpcError('cannot parse $EDITOR value: empty command')
  await new Promise<void>((resolve, reject) => {
    const child = spawn(words[0], [...words.slice(1), file], { stdio: 'inherit' })
    child.on('error', (err: NodeJS.ErrnoException) => {
      reject(new RpcError(err.code === 'ENOENT' ? `exec: "${words[0]}": executable file not found in $PATH` : err.message))
    })
    child.on('exit', (code, signal) => {
      if (code === 0) resolve()
      else reject(new RpcError(signal != null ? `signal: ${signal}` : `exit status ${code ?? 1}`))
    })
  })
}

export const configEdit = defineCommand({
  path: ['config', 'edit'],
  description: 'Open the config file for editing in $EDITOR.',
  help: "To use 'ipfs config edit', you must have the $EDITOR environment\nvariable set to your preferred text editor.",
  http: false,
  noRepo: true,
  output: 'ndjson',
  async run ({ options, deps }): Promise<undefined> {
    const root = options.repoDir ?? (deps.repoPath !== '' ? deps.repoPath : defaultRepoPath())
    const file = configFilename(root, options.configFile)
    const editor = process.env.EDITOR ?? ''
    if (editor === '') throw new RpcError('ENV variable $EDITOR not set')
    await runEditor(editor, file)
    return undefined
  }
})
