// Code shape: no import cycles, and the layers import downwards only (core ← registry ← plugins ← server).
import path from 'node:path'
import { expect } from 'chai'
import { ROOT } from '../../helpers/daemon.js'
import { cyclePath, importCycles, importGraph } from '../../helpers/import-graph.js'

const LAYERS = ['core', 'registry', 'plugins', 'server']
const layerOf = (file: string): number => LAYERS.indexOf(file.split('/')[0])

describe('code shape: imports', () => {
  const graph = importGraph(ROOT)

  it('reads the real sources (the graph is not empty)', () => {
    expect(graph.size).to.be.greaterThan(100)
    expect(graph.get('server/node.ts')).to.include('registry/registry.ts')
    expect(graph.get('server/daemon.ts')).to.include('plugins/version/system.ts')
    expect(graph.get('registry/types.ts')).to.include('core/cradle.ts')
  })

  it('has no import cycle (type-only imports included)', () => {
    const cycles = importCycles(graph).map(c => cyclePath(graph, c[0], new Set(c)).join(' -> '))
    expect(cycles, 'import cycles').to.deep.equal([])
  })

  it('finds a cycle when there is one (the checker itself)', () => {
    const g = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']], ['d.ts', ['a.ts']]])
    const cycles = importCycles(g)
    expect(cycles).to.deep.equal([['a.ts', 'b.ts', 'c.ts']])
    expect(cyclePath(g, 'a.ts', new Set(cycles[0]))).to.deep.equal(['a.ts', 'b.ts', 'c.ts', 'a.ts'])
  })

  it('imports only from its own layer or the layers below (core ← registry ← plugins ← server)', () => {
    const upward: string[] = []
    for (const [file, deps] of graph) {
      const from = layerOf(file)
      if (from < 0) continue
      for (const dep of deps) {
        if (layerOf(dep) > from) upward.push(`${file} -> ${dep}`)
      }
    }
    expect(upward, `upward imports (under ${path.basename(ROOT)})`).to.deep.equal([])
  })
})
