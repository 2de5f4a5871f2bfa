/**
 * The import graph of a source tree, read with TypeScript's own scanner (`preProcessFile`: static
 * imports, `import type`, `export … from`, dynamic `import()`) and its module resolution under the
 * project's tsconfig, so a specifier resolves exactly as tsc resolves it. Only edges between files
 * of the scanned folders are kept: packages and `node:` modules cannot close a cycle of ours.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import ts from 'typescript'

/** Every `.ts` file (declarations excepted) under the folders. */
function sourceFiles(folders: string[]): string[] {
  return folders.flatMap((folder) =>
    readdirSync(folder, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
      .map((entry) => join(entry.parentPath, entry.name)),
  )
}

function compilerOptions(tsconfig: string): ts.CompilerOptions {
  const read = ts.readConfigFile(tsconfig, (file) => ts.sys.readFile(file))
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'))
  return ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(tsconfig)).options
}

/** File → the files of the scanned folders it imports (sorted, without repeats). */
export function importGraph(folders: string[], tsconfig: string): Map<string, string[]> {
  const options = compilerOptions(tsconfig)
  const files = sourceFiles(folders)
  const known = new Set(files)
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    const targets = new Set<string>()
    for (const { fileName } of importedFiles) {
      const resolved = ts.resolveModuleName(fileName, file, options, ts.sys).resolvedModule?.resolvedFileName
      if (resolved !== undefined && known.has(resolved)) targets.add(resolved)
    }
    graph.set(file, [...targets].sort())
  }
  return graph
}

/**
 * The cycles of a graph: each strongly connected component of more than one file, and each file
 * that imports itself (Tarjan's algorithm, iterative so a deep tree cannot overflow the stack).
 */
export function importCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const stack: string[] = []
  const cycles: string[][] = []
  for (const start of graph.keys()) {
    if (index.has(start)) continue
    const work: Array<{ file: string; next: number }> = [{ file: start, next: 0 }]
    const enter = (file: string) => {
      index.set(file, index.size)
      low.set(file, index.get(file)!)
      stack.push(file)
      onStack.add(file)
    }
    enter(start)
    while (work.length > 0) {
      const frame = work[work.length - 1]!
      const targets = graph.get(frame.file) ?? []
      if (frame.next < targets.length) {
        const target = targets[frame.next++]!
        if (!index.has(target)) {
          enter(target)
          work.push({ file: target, next: 0 })
        } else if (onStack.has(target)) low.set(frame.file, Math.min(low.get(frame.file)!, index.get(target)!))
        continue
      }
      work.pop()
      const parent = work[work.length - 1]
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!))
      if (low.get(frame.file) !== index.get(frame.file)) continue
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== frame.file)
      if (component.length > 1 || targets.includes(frame.file)) cycles.push(component.sort())
    }
  }
  return cycles
}

/**
 * The folder of `base` a file belongs to: its first path segment below `base`, a file's `.ts`
 * dropped, so `router.ts` and `router/` are one folder (the file is the folder's front).
 */
export function folderOf(file: string, base: string): string {
  return file.slice(base.length).split('/')[0]!.replace(/\.ts$/, '')
}

/** Folder → folder it imports → the file imports that make the edge (`from → to`, relative to the root). */
export type FolderGraph = Map<string, Map<string, string[]>>

/**
 * The import graph between folders: `folders` names each file's folder, or undefined for a file
 * outside every folder. Imports inside one folder are left out.
 */
export function folderGraph(graph: Map<string, string[]>, folders: (file: string) => string | undefined, root = ''): FolderGraph {
  const edges: FolderGraph = new Map()
  for (const [file, targets] of graph) {
    const from = folders(file)
    if (from === undefined) continue
    if (!edges.has(from)) edges.set(from, new Map())
    for (const target of targets) {
      const to = folders(target)
      if (to === undefined || to === from) continue
      const imports = edges.get(from)!
      if (!imports.has(to)) imports.set(to, [])
      imports.get(to)!.push(`${file.slice(root.length)} → ${target.slice(root.length)}`)
    }
  }
  return edges
}

/** The folder graph as a plain graph (folder → the folders it imports), for `importCycles`. */
export function folderEdges(folders: FolderGraph): Map<string, string[]> {
  return new Map([...folders].map(([folder, imports]) => [folder, [...imports.keys()].sort()]))
}

/**
 * Each import that does not go down the layers: `layers` lists folders from the top down, a row
 * of several folders being one layer whose folders import nothing of each other. A folder may
 * import only the folders of the layers below its own.
 */
export function layerViolations(folders: FolderGraph, layers: readonly (readonly string[])[]): string[] {
  const rank = new Map(layers.flatMap((row, index) => row.map((folder) => [folder, index] as const)))
  const found: string[] = []
  for (const [from, imports] of folders)
    for (const [to, files] of imports) {
      const [above, below] = [rank.get(from), rank.get(to)]
      if (above !== undefined && below !== undefined && below > above) continue
      const how =
        above === undefined || below === undefined ? 'one of them in no layer' : below === above ? 'beside it in its layer' : 'above it'
      found.push(`${from} imports ${to}, ${how}: ${files.join(', ')}`)
    }
  return found.sort()
}
