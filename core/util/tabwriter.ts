// Go's text/tabwriter, applied to a whole text at once (Write everything, then Flush).
// Cells are tab-terminated; consecutive lines with a cell in the same column form a column block
// whose width is its widest cell plus `padding` (at least `minwidth`). The text after a line's
// last tab is not part of any column.

/** Go tabwriter flags (same bit values) */
export const AlignRight = 4
export const DiscardEmptyColumns = 8
export const TabIndent = 16
export const Debug = 32

export interface TabwriterInit {
  minwidth: number
  /** width of a tab when padchar is '\t' (Go default 8) */
  tabwidth?: number
  padding: number
  /** ' ' (default) or '\t' */
  padchar?: string
  flags?: number
}

interface Cell { text: string, width: number, htab: boolean }

const runeCount = (s: string): number => {
  let n = 0
  for (const _ of s) n++
  return n
}

export function tabwrite (text: string, init: TabwriterInit): string {
  const { minwidth, padding } = init
  const tabwidth = init.tabwidth ?? 8
  const padchar = init.padchar ?? ' '
  const flags = init.flags ?? 0

  // split into lines of cells; the last cell of a line is its unterminated tail
  const lines: Cell[][] = []
  let line: Cell[] = []
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (ch === '\t' || ch === '\v') {
      const t = text.slice(start, i)
      line.push({ text: t, width: runeCount(t), htab: ch === '\t' })
      start = i + 1
    } else if (ch === '\n' || ch === '\f') {
      const t = text.slice(start, i)
      line.push({ text: t, width: runeCount(t), htab: false })
      lines.push(line)
      line = []
      start = i + 1
    }
  }
  const tail = text.slice(start)
  line.push({ text: tail, width: runeCount(tail), htab: false })
  lines.push(line) // the last line has no newline (empty when the text ended with one)

  const widths: number[] = []
  const out: string[] = []

  const pad = (textw: number, cellw: number, useTabs: boolean): void => {
    if (padchar === '\t' || useTabs) {
      if (tabwidth === 0) return
      cellw = Math.ceil(cellw / tabwidth) * tabwidth
      out.push('\t'.repeat(Math.ceil((cellw - textw) / tabwidth)))
      return
    }
    out.push(padchar.repeat(Math.max(0, cellw - textw)))
  }

  const writeLines = (line0: number, line1: number): void => {
    for (let i = line0; i < line1; i++) {
      const cells = lines[i]
      let useTabs = (flags & TabIndent) !== 0
      cells.forEach((c, j) => {
        if (j > 0 && (flags & Debug) !== 0) out.push('|')
        if (c.text === '') {
          if (j < widths.length) pad(c.width, widths[j], useTabs)
        } else {
          useTabs = false
          if ((flags & AlignRight) === 0) {
            out.push(c.text)
            if (j < widths.length) pad(c.width, widths[j], false)
          } else {
            if (j < widths.length) pad(c.width, widths[j], false)
            out.push(c.text)
          }
        }
      })
      if (i + 1 < lines.length) out.push('\n')
    }
  }

  const format = (line0: number, line1: number): void => {
    const column = widths.length
    for (let current = line0; current < line1; current++) {
      if (column >= lines[current].length - 1) continue
      // a column block starts here: print the lines before it with the current widths
      writeLines(line0, current)
      line0 = current
      let width = minwidth
      let discardable = true
      for (; current < line1; current++) {
        const cells = lines[current]
        if (column >= cells.length - 1) break
        const c = cells[column]
        width = Math.max(width, c.width + padding)
        if (c.width > 0 || c.htab) discardable = false
      }
      if (discardable && (flags & DiscardEmptyColumns) !== 0) width = 0
      widths.push(width)
      format(line0, current)
      widths.pop()
      line0 = current
    }
    writeLines(line0, line1)
  }

  format(0, lines.length)
  return out.join('')
}
