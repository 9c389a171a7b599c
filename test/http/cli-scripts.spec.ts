// The CLI as scripts use it, against a spawned daemon: output shapes, exit statuses and messages compared
// with what Kubo 0.40.1's CLI prints for the same commands (observed beside tsipfs, see the README).
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { CLI, initTestRepo, runCli, startDaemon, waitExit, type Daemon } from '../helpers/daemon.js'

/** a shell pipeline with the CLI on its left: the shell's view of the CLI's exit status, and its stderr */
function piped (repo: string, cliArgs: string, right: string): { status: string, stderr: string } {
  const script = `"${process.execPath}" "${CLI}" ${cliArgs} 2>"$ERR" | ${right} >/dev/null; echo "\${PIPESTATUS[0]}"`
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-pipe-'))
  try {
    const err = path.join(dir, 'err')
    const out = execFileSync('bash', ['-c', script], { env: { ...process.env, IPFS_PATH: repo, ERR: err } }).toString().trim()
    return { status: out, stderr: readFileSync(err, 'utf8') }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('CLI as scripts use it (spawned daemon)', function () {
  this.timeout(120_000)
  let d: Daemon
  let big: string

  before(async () => {
    d = await startDaemon()
    const file = path.join(d.repo, '..', `${path.basename(d.repo)}-big.bin`)
    writeFileSync(file, Buffer.alloc(1 << 20, 7))
    big = d.cli(['add', '-Q', file]).stdout.trim()
    rmSync(file)
  })
  after(async () => { await d?.stop() })

  it('prints JSON for commands without a text encoder, as Kubo (files flush, key sign, diag sys)', () => {
    const root = d.cli(['files', 'stat', '--hash', '/']).stdout.trim()
    expect(d.cli(['files', 'flush', '/']).stdout).to.equal(`{"Cid":"${root}"}\n`)
    const signed = d.cli(['key', 'sign'], { input: 'hello\n' })
    expect(signed.status).to.equal(0)
    expect(signed.stdout).to.match(new RegExp(`^\\{"Key":\\{"Name":"self","Id":"k51[a-z0-9]+"\\},"Signature":"u[A-Za-z0-9_-]+"\\}\\n$`))
    const sys = d.cli(['diag', 'sys'])
    expect(sys.stdout.endsWith('}\n')).to.equal(true)
    expect(Object.keys(JSON.parse(sys.stdout) as object)).to.include.members(['diskinfo', 'environment', 'ipfs_version', 'net', 'runtime'])
  })

  it('ends quietly with status 141 (SIGPIPE) when the reader closes the pipe', () => {
    const cat = piped(d.repo, `cat ${big}`, 'head -c 10')
    expect(cat).to.deep.equal({ status: '141', stderr: '' })
    const refs = piped(d.repo, `refs ${big}`, 'head -1')
    expect(refs.stderr).to.equal('')
    expect(['0', '141']).to.include(refs.status) // a short listing may fit in the pipe before head exits
  })

  it('prints the Error line and the short help for a wrong argument count, the Error line alone for a bad option value', () => {
    const missing = d.cli(['config'])
    expect(missing.status).to.equal(1)
    expect(missing.stderr.startsWith('Error: argument "key" is required\n\nUSAGE\n  tsipfs config <key> [<value>] - Get and set IPFS config values.\n')).to.equal(true)
    // below the root an unknown name is an argument to the group (swarm limit: removed in Kubo 0.40.1)
    const removed = d.cli(['swarm', 'limit', 'system'])
    expect(removed.status).to.equal(1)
    expect(removed.stderr.startsWith('Error: expected 0 argument(s), got 2\n\nUSAGE\n  tsipfs swarm - Interact with the swarm.\n')).to.equal(true)
    expect(d.cli(['nope', 'x']).stderr.startsWith('Error: Unknown Command "nope"\n\n')).to.equal(true)
    const bad = d.cli(['pin', 'add', '--recursive=maybe', big])
    expect(bad.status).to.equal(1)
    expect(bad.stderr).to.equal('Error: strconv.ParseBool: parsing "maybe": invalid syntax\n')
  })

  it('a command\'s client error (Code 1) is followed by the help hint, as Kubo 0.40.1 (printMetaHelp); other errors are not', () => {
    const subs = d.cli(['name', 'pubsub', 'subs'])
    expect(subs.status).to.equal(1)
    expect(subs.stderr).to.equal("Error: IPNS pubsub subsystem is not enabled\nUse 'tsipfs name pubsub subs --help' for information about this command\n")
    expect(d.cli(['name', 'pubsub', 'cancel', '/ipns/x']).stderr).to.equal("Error: IPNS pubsub subsystem is not enabled\nUse 'tsipfs name pubsub cancel --help' for information about this command\n")
    expect(d.cli(['routing', 'findprovs', 'bafkqaaa']).stderr).to.equal("Error: this command must be run in online mode. Try running 'ipfs daemon' first\n")
    expect(d.cli(['ping', '-x', 'p']).stderr).to.equal('Error: unknown option "x"\n')
  })

  it('generates completions while the daemon runs, and completes an ipfs alias in bash', () => {
    const bash = d.cli(['commands', 'completion', 'bash'])
    expect(bash.status).to.equal(0)
    expect(bash.stdout.startsWith('#!/bin/bash\n')).to.equal(true)
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-compl-'))
    try {
      const f = path.join(dir, 'c.bash')
      writeFileSync(f, bash.stdout)
      const spec = execFileSync('bash', ['-c', `alias ipfs=tsipfs; source "${f}"; complete -p ipfs`]).toString()
      expect(spec).to.include('-F _tsipfs ipfs')
      expect(spawnSync('bash', ['-c', `source "${f}"; complete -p ipfs`]).status).to.not.equal(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    for (const shell of ['zsh', 'fish']) expect(d.cli(['commands', 'completion', shell]).status).to.equal(0)
  })

  it('version --all says what the daemon banner says (Kubo wording, tsipfs facts)', () => {
    const all = d.cli(['version', '--all']).stdout
    expect(all).to.match(/^tsipfs version: \S+ \(Kubo RPC API 0\.40\.\d+\)\nRepo version: \d+\nSystem version: \S+\/\S+\nNode\.js version: v\d+\.\d+\.\d+\n$/)
    expect(d.log()).to.include(all)
    expect(d.log()).to.include('Swarm not listening, running in offline mode.\n')
    expect(d.log()).to.include(`WebUI: ${d.url}/webui\n`)
  })

  it('get prints where it saves, then the progress line on stderr (Kubo: "\\r 0 B / 4 B    0.00%\\r 4 B / 4 B  100.00% 0s\\n")', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-get-'))
    try {
      const empty = d.cli(['files', 'stat', '--hash', '/']).stdout.trim()
      const r = spawnSync(process.execPath, [CLI, 'get', '-o', 'out', empty], { cwd: dir, env: { ...process.env, IPFS_PATH: d.repo }, encoding: 'utf8' })
      expect(r.status).to.equal(0)
      expect(r.stdout).to.equal('Saving file(s) to out\n')
      expect(r.stderr).to.equal('\r 0 B / 4 B    0.00%\r 4 B / 4 B  100.00% 0s\n')
      expect(existsSync(path.join(dir, 'out'))).to.equal(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('CLI: init, a stale api file, and the daemon on SIGINT', function () {
  this.timeout(120_000)

  it('init publishes the node\'s IPNS name to the empty directory and pins it (Kubo 0.40 init)', () => {
    const repo = initTestRepo()
    try {
      const empty = runCli(repo, ['files', 'stat', '--hash', '/']).stdout.trim()
      expect(runCli(repo, ['name', 'resolve', '--offline']).stdout).to.equal(`/ipfs/${empty}\n`)
      expect(runCli(repo, ['pin', 'ls']).stdout).to.equal(`${empty} recursive\n`)
    } finally {
      rmSync(repo, { recursive: true, force: true })
    }
  })

  it('a crashed daemon\'s api file is removed and the command runs in-process (Kubo checks the repo lock)', () => {
    const repo = initTestRepo()
    try {
      const id = runCli(repo, ['id', '-f', '<id>']).stdout
      writeFileSync(path.join(repo, 'api'), '/ip4/127.0.0.1/tcp/1')
      writeFileSync(path.join(repo, 'repo.lock'), '2147483646') // a PID no process has
      const r = runCli(repo, ['id', '-f', '<id>'])
      expect(r).to.deep.include({ status: 0, stdout: id, stderr: '' })
      expect(existsSync(path.join(repo, 'api'))).to.equal(false)
      // an explicit --api to nothing is Kubo's "cannot connect"
      const e = runCli(repo, ['--api', '/ip4/127.0.0.1/tcp/1', 'id'])
      expect(e.status).to.equal(1)
      expect(e.stderr).to.equal('Error: cannot connect to the api. Is the daemon running? To run as a standalone CLI command remove the api file in `$IPFS_PATH/api`\n')
    } finally {
      rmSync(repo, { recursive: true, force: true })
    }
  })

  it('prints Kubo\'s lines on SIGINT', async () => {
    const d = await startDaemon()
    try {
      d.proc.kill('SIGINT')
      await waitExit(d)
      expect(d.log()).to.include('Daemon is ready\n\nReceived interrupt signal, shutting down...\n(Hit ctrl-c again to force-shutdown the daemon.)\n')
    } finally {
      await d.stop()
    }
  })
})
