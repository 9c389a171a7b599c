import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createTestNode, type TestNode, renderText } from '../../helpers/node.js'
import type { CommandsOutput } from '../../../registry/registry.js'
import { commandsPlugin } from '../../../plugins/commands/index.js'
import { commandLines } from '../../../plugins/commands/commands.js'
import { versionPlugin } from '../../../plugins/version/index.js'
import { idPlugin } from '../../../plugins/id/index.js'
import { removedPlugin } from '../../../plugins/removed/index.js'
import { cliPlugin } from '../../../plugins/cli/index.js'
import { ensureDebs, skipWithReason } from '../../helpers/debs.js'

describe('commands plugin', () => {
  let node: TestNode
  before(async () => {
    node = await createTestNode({ plugins: [cliPlugin(), commandsPlugin(), versionPlugin(), idPlugin(), removedPlugin()] })
  })
  after(async () => { await node.stop() })

  describe('commands', () => {
    it('returns the tree in Kubo’s shape: Name, Subcommands, Options', async () => {
      const out: CommandsOutput = await node.invoke('commands')
      expect(Object.keys(out)).to.deep.equal(['Name', 'Subcommands', 'Options'])
      expect(out.Name).to.equal('ipfs')
      expect(out.Options).to.have.length(15)
      expect(out.Options[0]).to.deep.equal({ Names: ['repo-dir'] })
      const version = out.Subcommands.find(c => c.Name === 'version')
      expect(version?.Options).to.deep.equal([{ Names: ['number', 'n'] }, { Names: ['commit'] }, { Names: ['repo'] }, { Names: ['all'] }])
      expect(version?.Subcommands.map(c => c.Name)).to.have.members(['check', 'deps'])
      const commands = out.Subcommands.find(c => c.Name === 'commands')
      expect(commands?.Options).to.deep.equal([{ Names: ['flags', 'f'] }])
      // NoRemote completion is listed; CLI-only daemon/init are not
      expect(commands?.Subcommands[0].Name).to.equal('completion')
      expect(commands?.Subcommands[0].Subcommands.map(c => c.Name)).to.deep.equal(['bash', 'fish', 'zsh'])
      expect(out.Subcommands.map(c => c.Name)).to.not.include('daemon').and.to.not.include('init')
    })

    it('--flags does not change the JSON', async () => {
      expect(await node.invoke('commands', { options: { flags: true } })).to.deep.equal(await node.invoke('commands'))
    })

    it('text: one sorted `ipfs …` line per command', async () => {
      const text = await renderText(node, 'commands')
      const lines = text.split('\n')
      expect(lines.pop()).to.equal('')
      expect(lines[0]).to.equal('ipfs')
      expect(lines).to.include('ipfs version check').and.to.include('ipfs commands completion bash').and.to.include('ipfs dht findpeer')
      expect(lines).to.deep.equal([...lines].sort())
      expect(lines.some(l => l.includes('--'))).to.equal(false)
    })

    it('text --flags: option lines `path --name / path -x`, root options left out', async () => {
      const lines = (await renderText(node, 'commands', { query: [['f', ['true']]] })).trimEnd().split('\n')
      expect(lines).to.include('ipfs id --format / ipfs id -f')
      expect(lines).to.include('ipfs id --peerid-base')
      expect(lines).to.include('ipfs version --number / ipfs version -n')
      expect(lines).to.include('ipfs commands --flags / ipfs commands -f')
      expect(lines.filter(l => l.startsWith('ipfs --') || l.startsWith('ipfs -'))).to.deep.equal([])
      expect(lines).to.deep.equal([...lines].sort())
    })

    it('sorts bytewise and renders a one-letter name with one dash, an empty name as "--"', () => {
      const tree: CommandsOutput = {
        Name: 'ipfs',
        Options: [{ Names: ['offline'] }],
        Subcommands: [
          { Name: 'b', Subcommands: [], Options: [{ Names: ['allow-non-unixfs', ''] }] },
          { Name: 'B', Subcommands: [], Options: [] },
          { Name: 'a', Subcommands: [{ Name: 'x', Subcommands: [], Options: [{ Names: ['r'] }] }], Options: [] }
        ]
      }
      expect(commandLines(tree, true)).to.deep.equal(['ipfs', 'ipfs B', 'ipfs a', 'ipfs a x', 'ipfs a x -r', 'ipfs b', 'ipfs b --allow-non-unixfs / ipfs b --'])
    })

    it('is a noRepo command', () => {
      expect(node.registry.noRepo(['commands'])).to.equal(true)
    })
  })

  describe('commands/completion', () => {
    /** why a shell cannot be run here (undefined: it runs) */
    const noShell: Record<string, string | undefined> = {}
    before(function () {
      this.timeout(900_000) // installing Debian's zsh and fish on a fresh machine
      for (const sh of ['bash', 'zsh', 'fish']) noShell[sh] = ensureDebs({ [sh]: sh })
    })
    const shell = (ctx: Mocha.Context, sh: string): void => { if (noShell[sh] != null) skipWithReason(ctx, noShell[sh]) }
    it('is NoRemote (404 over HTTP) with its children', () => {
      expect(node.registry.httpAllowed(['commands', 'completion'])).to.equal(false)
      for (const sh of ['bash', 'zsh', 'fish']) {
        expect(node.registry.httpAllowed(['commands', 'completion', sh])).to.equal(false)
        expect(node.registry.resolveHttp(['commands', 'completion', sh])).to.equal(undefined)
      }
    })

    it('bash: a script completing commands, subcommands and flags', async function () {
      const script = (await node.invoke('commands/completion/bash') as Buffer).toString()
      expect(script.startsWith('#!/bin/bash\n')).to.equal(true)
      expect(script).to.include('complete -o nosort -o nospace -o default -F _tsipfs tsipfs')
      expect(script).to.include("'version')")
      expect(script).to.include('--peerid-base')
      // CLI-only commands are completed too
      expect(script).to.include("'daemon')")
      shell(this, 'bash')
      execFileSync('bash', ['-n'], { input: script })
    })

    it('bash: completing a real command line', async function () {
      shell(this, 'bash')
      const script = (await node.invoke('commands/completion/bash') as Buffer).toString()
      const complete = (words: string[]): string[] => execFileSync('bash', ['-c', `${script}\nCOMP_WORDS=(${words.map(w => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _tsipfs; printf '%s\\n' "\${COMPREPLY[@]}"`]).toString().split('\n').filter(Boolean)
      expect(complete(['tsipfs', 'vers'])).to.deep.equal(['version '])
      expect(complete(['tsipfs', 'version', ''])).to.deep.equal(['check ', 'deps '])
      expect(complete(['tsipfs', 'version', '--n'])).to.deep.equal(['--number '])
      expect(complete(['tsipfs', 'id', '--peer'])).to.deep.equal(['--peerid-base='])
    })

    it('zsh: the bash functions through bashcompinit', async function () {
      const script = (await node.invoke('commands/completion/zsh') as Buffer).toString()
      expect(script.startsWith('#compdef tsipfs\n')).to.equal(true)
      expect(script).to.include('bashcompinit')
      expect(script).to.include('_tsipfs()')
      shell(this, 'zsh')
      execFileSync('zsh', ['-n'], { input: script })
    })

    it('fish: complete lines per command and option', async function () {
      const script = (await node.invoke('commands/completion/fish') as Buffer).toString()
      expect(script).to.include("complete -c tsipfs -n '__fish_tsipfs_at_path' -a 'version' -d 'Show IPFS version information.'")
      expect(script).to.include("complete -c tsipfs -n '__fish_tsipfs_seen_path \\'version\\'' -s 'n' -l 'number' -d 'Only show the version number.'")
      expect(script).to.include("complete -c tsipfs -n '__fish_tsipfs_seen_path \\'id\\'' -r -s 'f' -l 'format'")
      shell(this, 'fish')
      // fish 3.6 cannot read a script from Node's stdin socket: give it a file
      const dir = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-fish-'))
      try {
        writeFileSync(path.join(dir, 'tsipfs.fish'), script)
        execFileSync('fish', ['--no-execute', path.join(dir, 'tsipfs.fish')])
        // a syntax error is caught: the check can fail
        writeFileSync(path.join(dir, 'bad.fish'), script + '\nend\n')
        expect(() => execFileSync('fish', ['--no-execute', path.join(dir, 'bad.fish')], { stdio: 'ignore' })).to.throw()
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })
})
