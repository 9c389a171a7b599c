import { expect } from 'chai'
import { sortByBytes } from '../../../core/go/strings.js'

const bytewise = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

describe('core/go/strings sortByBytes', () => {
  it('ASCII and BMP names below U+D800: the UTF-8 byte order', () => {
    const names = ['f10', 'f9', 'F1', 'a b', 'é', 'z', 'ä', '', 'a', '中文', 'ab']
    expect(sortByBytes([...names], n => n)).to.deep.equal([...names].sort(bytewise))
  })

  it('astral characters sort after U+E000–U+FFFF as their UTF-8 bytes do (UTF-16 order would put them first)', () => {
    const names = ['\uffff', '😀', '\ue000x', 'a', '𝄞', '\ufb01']
    const sorted = sortByBytes(names.map(name => ({ name })), e => e.name).map(e => e.name)
    expect(sorted).to.deep.equal([...names].sort(bytewise))
    expect(sorted.slice(-2)).to.deep.equal(['😀', '𝄞'].sort(bytewise))
  })

  it('sorts in place, stable for equal keys', () => {
    const items = [{ k: 'b', i: 0 }, { k: 'a', i: 1 }, { k: 'b', i: 2 }, { k: '😀', i: 3 }, { k: 'a', i: 4 }]
    const out = sortByBytes(items, x => x.k)
    expect(out).to.equal(items)
    expect(items.map(x => x.i)).to.deep.equal([1, 4, 0, 2, 3])
  })
})
