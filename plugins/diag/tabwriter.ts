// Go text/tabwriter with flags 0 and a space pad character: tab-terminated cells are aligned in
// column blocks, the text after a line's last tab is not.

export interface TabwriterInit { minwidth: number, padding: number }

const width = (s: string): number => [...s].length

export function tabwrite (text: string, { minwidth, padding }: TabwriterInit): string {
  const raw = text.endsWith('\n') ? text.slice(0, -1) : text
  const lines = raw.split('\n').map(l => l.split('\t'))
  const widths: number[] = []
  let out = ''

  const writeLines = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const cells = lines[i]
      cells.forEach((cell, j) => {
        out += cell
        if (j < widths.length && j < cells.length - 1) out += ' '.repeat(Math.max(0, widths[j] - width(cell)))
      })
      out += '\n'
    }
  }

  const format = (line0: number, line1: number): void => {
    const column = widths.length
    for (let current = line0; current < line1; current++) {
      if (column >= lines[current].length - 1) continue
      writeLines(line0, current)
      line0 = current
      let w = minwidth
      for (; current < line1; current++) {
        const cells = lines[current]
        if (column >= cells.length - 1) break
        w = Math.max(w, width(cells[column]) + padding)
      }
      widths.push(w)
      format(line0, current)
      widths.pop()
      line0 = current
    }
    writeLines(line0, line1)
  }

  format(0, lines.length)
  return out
}
