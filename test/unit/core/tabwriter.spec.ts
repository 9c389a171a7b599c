import { expect } from 'chai'
import { tabwrite, AlignRight, Debug } from '../../../core/util/tabwriter.js'
import { tabwrite as diagTabwrite } from '../../../plugins/diag/tabwriter.js'

// Vectors: Go's text/tabwriter example_test.go and Kubo's ls tables (t0045).
describe('core/util/tabwriter (Go text/tabwriter)', () => {
  it('pads with tabs on tab stops (ExampleWriter_Init, first table)', () => {
    const out = tabwrite('a\tb\tc\td\t.\n123\t12345\t1234567\t123456789\t.\n\n', { minwidth: 0, tabwidth: 8, padding: 0, padchar: '\t' })
    expect(out).to.equal('a\tb\tc\td\t\t.\n123\t12345\t1234567\t123456789\t.\n\n')
  })

  it('aligns right with a minimum width (ExampleWriter_Init, second table)', () => {
    const out = tabwrite('a\tb\tc\td\t.\n123\t12345\t1234567\t123456789\t.\n\n', { minwidth: 5, tabwidth: 0, padding: 1, padchar: ' ', flags: AlignRight })
    expect(out).to.equal('    a     b       c         d.\n  123 12345 1234567 123456789.\n\n')
  })

  it('keeps column blocks apart (Example_elastic)', () => {
    const out = tabwrite('a\tb\tc\naa\tbb\tcc\naaa\t\naaaa\tdddd\teeee\n', { minwidth: 0, tabwidth: 0, padding: 1, padchar: '.', flags: AlignRight | Debug })
    expect(out).to.equal('....a|..b|c\n...aa|.bb|cc\n..aaa|\n.aaaa|.dddd|eeee\n')
  })

  it('does not align the text after the last tab (Example_trailingTab)', () => {
    const out = tabwrite('a\tb\taligned\t\naa\tbb\taligned\t\naaa\tbbb\tunaligned\naaaa\tbbbb\taligned\t\n', { minwidth: 0, tabwidth: 0, padding: 3, padchar: '-', flags: AlignRight | Debug })
    expect(out).to.equal('------a|------b|---aligned|\n-----aa|-----bb|---aligned|\n----aaa|----bbb|unaligned\n---aaaa|---bbbb|---aligned|\n')
  })

  it('reproduces the ls table with headers (t0045)', () => {
    const text = 'Hash\tSize\tName\nQmYGeKXr7Jef8FgFbrb6X2cY45od7anc2QstAJbWT2E5ak\t128\t128\nQmZULkCELmmk5XNfCgTnCyFgAVxBRBXyDHGGMVoLFLiXEN\t6\ta\n'
    expect(tabwrite(text, { minwidth: 1, tabwidth: 2, padding: 1 })).to.equal(
      'Hash                                           Size Name\n' +
      'QmYGeKXr7Jef8FgFbrb6X2cY45od7anc2QstAJbWT2E5ak 128  128\n' +
      'QmZULkCELmmk5XNfCgTnCyFgAVxBRBXyDHGGMVoLFLiXEN 6    a\n')
  })

  it('counts runes, not bytes, and keeps a last line without newline', () => {
    expect(tabwrite('é\tx\nab\ty', { minwidth: 0, padding: 1 })).to.equal('é  x\nab y')
  })

  it('is the one copy diag uses', () => {
    expect(diagTabwrite).to.equal(tabwrite)
  })
})
