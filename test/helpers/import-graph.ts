// The project's static import graph (every `import`/`export … from`, type-only ones included: a type import
// is still a dependency of the module's meaning) and its cycles (strongly connected components).
import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'

const SOURCE_DIRS = ['core', 'registry', 'server', 'plugins']

function listTs (dir: string, out: string[]): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name)
    if (entry.isDirectory()) listTs(p, out)
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(p)
  }
}

/** hand-written product sources (relative paths, posix separators) */
export function productSources (root: string): string[] {
  const files: string[] = []
  for (const d of SOURCE_DIRS) listTs(path.join(root, d), files)
  if (fs.existsSync(path.join(root, 'index.ts'))) files.push(path.join(root, 'index.ts'))
  return files.map(f => path.relative(root, f).split(path.sep).join('/')).sort()
}

/**
 * file → the project files it imports: `import`/`export … from` (type-only too) and `import('…')` types.
 * A dynamic `import()` call is not an edge: it loads the module when run, after both modules have been evaluated.
 */
export function importGraph (root: string, files = productSources(root)): Map<string, string[]> {
  const known = new Set(files)
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true)
    const deps = new Set<string>()
    const add = (spec: string): void => {
      if (!spec.startsWith('.')) return
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec.replace(/\.js$/, '.ts')))
      if (known.has(target)) deps.add(target)
      else if (known.has(target + '/index.ts')) deps.add(target + '/index.ts')
    }
    const walk = (node: ts.Node): void => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier != null && ts.isStringLiteral(node.moduleSpecifier)) {
        add(node.moduleSpecifier.text)
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        add(node.argument.literal.text) // `import('./x.js').T` in a type position
      }
      ts.forEachChild(node, walk)
    }
    walk(source)
    graph.set(file, [...deps].sort())
  }
  return graph
}

/** Tarjan's strongly connected components of size > 1 (or a file importing itself) */
export function importCycles (graph: Map<string, string[]>): string[][] {
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: string[][] = []
  const visit = (v: string): void => {
    idx.set(v, index); low.set(v, index); index++
    stack.push(v); onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)) } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = []
      let w: string
      do { w = stack.pop()!; onStack.delete(w); comp.push(w) } while (w !== v)
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(comp.sort())
    }
  }
  for (const v of graph.keys()) if (!idx.has(v)) visit(v)
  return out
}

/** one shortest cycle through `start` inside its component, for a readable failure message */
export function cyclePath (graph: Map<string, string[]>, start: string, within: Set<string>): string[] {
  const prev = new Map<string, string>()
  const queue = [start]
  const seen = new Set([start])
  while (queue.length > 0) {
    const v = queue.shift()!
    for (const w of graph.get(v) ?? []) {
      if (!within.has(w)) continue
      if (w === start) {
        const p = [v]
        while (p[0] !== start) p.unshift(prev.get(p[0])!)
        return [...p, start]
      }
      if (!seen.has(w)) { seen.add(w); prev.set(w, v); queue.push(w) }
    }
  }
  return [start]
}
