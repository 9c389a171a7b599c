// server/cli parseArgv: go-ipfs-cmds cli/parse.go parseShortOpts (a single-dash word is short options: bools, then
// one option taking the rest of the word, or the next word, as its value).
import { expect } from 'chai'
import { parseArgv } from '../../../server/cli.js'
import { createTestNode, type TestNode } from '../../helpers/node.js'

describe('server/cli parseArgv short options', () => {
  let node: TestNode
  before(async () => { node = await createTestNode() })
  after(async () => { await node.stop() })
  const parse = (argv: string[]): Record<string, string[]> => Object.fromEntries(parseArgv(node.registry, argv).raw)

  it('a non-bool short option takes the rest of its word as its value (`ping -n1`, `add -rQs size-10`), as Kubo 0.40.1', () => {
    expect(parse(['ping', '-n1', 'x'])).to.deep.include({ n: ['1'] })
    expect(parse(['ping', '-n', '3', 'x'])).to.deep.include({ n: ['3'] })
    expect(parse(['add', '-rQ', 'f'])).to.deep.include({ r: ['true'], Q: ['true'] })
    expect(parse(['add', '-rQs', 'size-10', 'f'])).to.deep.include({ r: ['true'], Q: ['true'], s: ['size-10'] })
    expect(parse(['add', '-Qssize-10', 'f'])).to.deep.include({ Q: ['true'], s: ['size-10'] })
    expect(() => parse(['add', '-rz', 'f'])).to.throw('unknown option "rz"')
  })
})
