// The CLI's file walk for `add` (go-ipfs-cmds cli/parse.go + boxo files): filters, order, metadata.
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { collectFiles, goFileMode, goModeString, IgnoreRules, partName, totalSize } from '../../../server/cli-files.js'
import type { FileEntry } from '../../../registry/types.js'

use(chaiAsPromised)

const paths = (entries: FileEntry[]): string[] => entries.map(e => `${e.type[0]}:${e.path}`)

async function text (e: FileEntry): Promise<string> {
  const chunks: Uint8Array[] = []
  for await (const c of e.content ?? []) chunks.push(c)
  return Buffer.concat(chunks).toString('utf8')
}

describe('server/cli-files', () => {
  let root: string
  let planets: string

  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-cli-files-'))
    // t0042-add-skip.sh's tree
    planets = path.join(root, 'planets')
    await fs.mkdir(path.join(planets, '.asteroids'), { recursive: true })
    const files: Record<string, string> = {
      '.gitignore': 'mars.txt\n',
      'mars.txt': 'Hello Mars\n',
      'venus.txt': 'Hello Venus\n',
      '.pluto.txt': 'Hello Pluto\n',
      '.charon.txt': 'Hello Charon\n',
      '.asteroids/ceres.txt': 'Hello Ceres\n',
      '.asteroids/pallas.txt': 'Hello Pallas\n'
    }
    for (const [p, c] of Object.entries(files)) await fs.writeFile(path.join(planets, p), c)
    // a second tree with a symlink, a nested dir and a byte-order check
    await fs.mkdir(path.join(root, 'other', 'sub'), { recursive: true })
    await fs.writeFile(path.join(root, 'other', 'b.txt'), 'b')
    await fs.writeFile(path.join(root, 'other', 'B.txt'), 'B')
    await fs.writeFile(path.join(root, 'other', 'sub', 'venus.txt'), 'v')
    await fs.symlink('b.txt', path.join(root, 'other', 'link'))
    await fs.symlink('does/not/exist', path.join(root, 'other', 'sub', 'bad'))
    await fs.chmod(path.join(root, 'other', 'b.txt'), 0o640)
    await fs.utimes(path.join(root, 'other', 'b.txt'), 1604320482, 1604320482)
  })

  after(async () => { await fs.rm(root, { recursive: true, force: true }) })

  it('skips hidden entries inside directories by default', async () => {
    const entries = await collectFiles([planets], { recursive: true })
    expect(paths(entries)).to.deep.equal(['d:planets', 'f:planets/mars.txt', 'f:planets/venus.txt'])
    expect(await text(entries[1])).to.equal('Hello Mars\n')
  })

  it('includes hidden entries with --hidden, in byte order', async () => {
    const entries = await collectFiles([planets], { recursive: true, hidden: true })
    expect(paths(entries)).to.deep.equal([
      'd:planets', 'd:planets/.asteroids', 'f:planets/.asteroids/ceres.txt', 'f:planets/.asteroids/pallas.txt',
      'f:planets/.charon.txt', 'f:planets/.gitignore', 'f:planets/.pluto.txt', 'f:planets/mars.txt', 'f:planets/venus.txt'
    ])
  })

  it('applies --ignore-rules-path (relative to the working directory) to names', async () => {
    const entries = await collectFiles(['.'], { recursive: true, hidden: true, ignoreRulesPath: '.gitignore', cwd: planets })
    expect(paths(entries)).to.not.include('f:planets/mars.txt')
    expect(paths(entries)).to.include('f:planets/venus.txt')
    expect(entries[0].path).to.equal('planets')
  })

  it('applies repeated --ignore rules, also to directories', async () => {
    const entries = await collectFiles(['.'], { recursive: true, hidden: true, ignore: ['.asteroids', 'venus.txt'], cwd: planets })
    expect(paths(entries)).to.deep.equal(['d:planets', 'f:planets/.charon.txt', 'f:planets/.gitignore', 'f:planets/.pluto.txt', 'f:planets/mars.txt'])
  })

  it('fails for a missing ignore rules file like Go', async () => {
    await expect(collectFiles(['.'], { recursive: true, ignoreRulesPath: 'nope', cwd: planets })).to.be.rejectedWith('open nope: no such file or directory')
  })

  it('adds a hidden file named explicitly', async () => {
    const entries = await collectFiles([path.join(planets, '.pluto.txt')], { recursive: false })
    expect(paths(entries)).to.deep.equal(['f:.pluto.txt'])
  })

  it('needs -r for a directory', async () => {
    await expect(collectFiles(['planets'], { recursive: false, argRecursive: true, cwd: root }))
      .to.be.rejectedWith("'planets' is a directory, use the '-r' flag to specify directories")
    await expect(collectFiles(['planets'], { recursive: true, argRecursive: false, argName: 'data', cwd: root }))
      .to.be.rejectedWith("invalid path 'planets', argument 'data' does not support directories")
  })

  it('reports a missing path like Go', async () => {
    await expect(collectFiles(['missing.txt'], { cwd: root })).to.be.rejectedWith('lstat missing.txt: no such file or directory')
  })

  it('keeps symlinks as links, sorts arguments by base name, and skips a repeated file', async () => {
    const entries = await collectFiles(['other/link', 'planets/venus.txt', 'other/link'], { recursive: true, cwd: root })
    expect(paths(entries)).to.deep.equal(['s:link', 'f:venus.txt'])
    expect(entries[0].target).to.equal('b.txt')
  })

  it('rejects the same base name from two directories', async () => {
    await expect(collectFiles(['planets/venus.txt', 'other/sub/venus.txt'], { cwd: root }))
      .to.be.rejectedWith('file name venus.txt repeated under different import directories: other/sub and planets')
  })

  it('walks in byte order and keeps broken links', async () => {
    const entries = await collectFiles(['other'], { recursive: true, cwd: root })
    expect(paths(entries)).to.deep.equal(['d:other', 'f:other/B.txt', 'f:other/b.txt', 's:other/link', 'd:other/sub', 's:other/sub/bad', 'f:other/sub/venus.txt'])
  })

  it('dereferences symlinks with --dereference-symlinks (broken ones fail)', async () => {
    await expect(collectFiles(['other'], { recursive: true, derefSymlinks: true, cwd: root }))
      .to.be.rejectedWith('stat other/sub/bad: no such file or directory')
    const entries = await collectFiles(['other/link'], { derefSymlinks: true, cwd: root })
    expect(paths(entries)).to.deep.equal(['f:b.txt'])
    expect(await text(entries[0])).to.equal('b')
    const args = await collectFiles(['other/link'], { derefArgs: true, cwd: root })
    expect(paths(args)).to.deep.equal(['f:b.txt'])
  })

  it('carries the Go file mode and mtime, and the total size', async () => {
    const entries = await collectFiles(['other'], { recursive: true, cwd: root })
    const b = entries.find(e => e.path === 'other/b.txt')
    expect(b?.mode).to.equal(0o640)
    expect(b?.mtime).to.deep.equal({ secs: 1604320482 })
    expect(partName(b as FileEntry)).to.equal('file?mode=0640&mtime=1604320482')
    const dir = entries[0]
    expect(goModeString(dir.mode ?? 0)[0]).to.equal('d')
    expect(partName(dir, 'file-1')).to.match(/^file-1\?mode=020000000\d{3}&mtime=\d+/)
    const link = entries.find(e => e.type === 'symlink')
    expect(goModeString(link?.mode ?? 0)).to.equal('Lrwxrwxrwx')
    expect(totalSize(entries)).to.equal(3)
  })

  it('reads stdin for a "-" argument under --stdin-name', async () => {
    const entries = await collectFiles(['-'], { stdinName: 'hello.txt', stdin: async function * () { yield Buffer.from('hi') } })
    expect(paths(entries)).to.deep.equal(['f:hello.txt'])
    expect(await text(entries[0])).to.equal('hi')
  })

  it('formats Go file modes', () => {
    expect(goModeString(goFileMode({ mode: 0o100644 }))).to.equal('-rw-r--r--')
    expect(goModeString(goFileMode({ mode: 0o010644 }))).to.equal('prw-r--r--')
    expect(goModeString(goFileMode({ mode: 0o041777 }))).to.equal('dtrwxrwxrwx')
  })

  it('compiles gitignore lines as go-gitignore does', () => {
    const rules = new IgnoreRules(['*.log', '!keep.log', '# comment', 'build/', 'a?c', '/root.txt'])
    expect(rules.matches('x.log')).to.equal(true)
    expect(rules.matches('keep.log')).to.equal(false)
    expect(rules.matches('build')).to.equal(false)
    expect(rules.matches('build/')).to.equal(true)
    expect(rules.matches('abc')).to.equal(false) // go-gitignore escapes '?'
    expect(rules.matches('a?c')).to.equal(true)
    expect(rules.matches('root.txt')).to.equal(true)
    expect(rules.matches('# comment')).to.equal(false)
  })
})
