import { expect } from 'chai'
import { coerceOptions, coerceValue, parseGoInt, type ResolvedOption } from '../../../registry/coerce.js'
import type { OptionSpec } from '../../../registry/types.js'

const table = (opts: Record<string, OptionSpec>): Map<string, ResolvedOption> => {
  const m = new Map<string, ResolvedOption>()
  for (const [canonical, spec] of Object.entries(opts)) for (const n of [canonical, ...(spec.aliases ?? [])]) m.set(n, { canonical, spec })
  return m
}

describe('registry/coerce', () => {
  const cases: Array<[OptionSpec['type'], string, unknown]> = [
    ['bool', '', true], ['bool', 'TRUE', true], ['bool', 'T', true], ['bool', '1', true], ['bool', 'f', false], ['bool', 'False', false],
    ['int', '10', 10], ['int', '0x1f', 31], ['int', '0o17', 15], ['int', '0b101', 5], ['int', '010', 8], ['int', '-5', -5], ['int', '1_000', 1000],
    ['uint', '7', 7], ['int64', '9007199254740991', 9007199254740991], ['float', '1.5', 1.5], ['float', 'inf', Infinity],
    ['string', '', ''], ['string', 'a b', 'a b']
  ]
  for (const [type, text, want] of cases) {
    it(`${type} ${JSON.stringify(text)} → ${String(want)}`, () => {
      expect(coerceValue({ type, description: '' }, 'x', text)).to.deep.equal(want)
    })
  }

  const bad: Array<[OptionSpec['type'], string, string]> = [
    ['bool', 'yes', 'could not convert value "yes" to type "bool" (for option "-opt")'],
    ['int', 'abc', 'could not convert value "abc" to type "int" (for option "-opt")'],
    ['int', '', 'could not convert empty value to type "int" (for option "-opt")'],
    ['int', '4294967296', 'could not convert value "4294967296" to type "int" (for option "-opt")'],
    ['uint', '-1', 'could not convert value "-1" to type "uint" (for option "-opt")'],
    ['float', 'x', 'could not convert value "x" to type "float64" (for option "-opt")']
  ]
  for (const [type, text, message] of bad) {
    it(`rejects ${type} ${JSON.stringify(text)}`, () => {
      expect(() => coerceValue({ type, description: '' }, 'opt', text)).to.throw(message)
    })
  }

  it('32-bit range for int, 64-bit for int64', () => {
    expect(parseGoInt('2147483647', false, 32)).to.equal(2147483647)
    expect(parseGoInt('2147483648', false, 32)).to.equal(undefined)
    expect(parseGoInt('2147483648', false, 64)).to.equal(2147483648)
  })

  it('maps aliases to the canonical name and fills defaults', () => {
    const t = table({ recursive: { type: 'bool', aliases: ['r'], default: true, description: '' }, name: { type: 'string', description: '' } })
    const { values, given } = coerceOptions(t, [['r', ['false']]])
    expect(values).to.deep.equal({ recursive: false })
    expect([...given]).to.deep.equal(['recursive'])
    expect(coerceOptions(t, []).values).to.deep.equal({ recursive: true })
  })

  it('rejects a repeated scalar with Kubo\'s text and keeps repeated strings', () => {
    const t = table({ n: { type: 'int', description: '' }, s: { type: 'strings', description: '' } })
    expect(() => coerceOptions(t, [['n', ['1', '2']]])).to.throw('expected key n to have only a single value, received [1 2]')
    expect(coerceOptions(t, [['s', ['a', 'b']]]).values.s).to.deep.equal(['a', 'b'])
  })

  it('ignores unknown keys', () => {
    expect(coerceOptions(table({}), [['peer-id', ['x']], ['headers', ['[object Object]']]]).values).to.deep.equal({})
  })
})
