/**
 * No function of the library is over 100 lines (src/ and adapters/; src/testing/, the shipped
 * test suites, whose `describe` bodies are long lists of cases, excepted). A function is
 * counted from its first token to its last, blank lines, comments and nested functions
 * included; each function, method, accessor, constructor and arrow is counted on its own.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const MAX_LINES = 100
const root = new URL('../..', import.meta.url).pathname
const EXCLUDED = [join(root, 'src/testing')]

function sourceFiles(dir: string): string[] {
  if (EXCLUDED.includes(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sourceFiles(path)
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : []
  })
}

/** A readable name for a function: its own, or that of the variable, property or call it is given to. */
function nameOf(node: ts.Node, file: ts.SourceFile): string {
  const named = node as { name?: ts.Node }
  if (named.name) return named.name.getText(file)
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText(file)
  }
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText(file).slice(0, 40)})`
  return '(anonymous)'
}

/** Every function-like node of a file with its length in lines. */
export function functionLengths(path: string, text: string): Array<{ name: string; line: number; lines: number }> {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const out: Array<{ name: string; line: number; lines: number }> = []
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line
      out.push({ name: nameOf(node, file), line: first + 1, lines: last - first + 1 })
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return out
}

describe('function length', () => {
  it('counts a function from its first line to its last, nested ones on their own', () => {
    const body = Array.from({ length: 5 }, (_, i) => `  const v${i} = ${i}`).join('\n')
    const text = `/** doc */\nexport function outer() {\n${body}\n  const inner = () => {\n    return 1\n  }\n}\n`
    expect(functionLengths('x.ts', text)).toEqual([
      { name: 'outer', line: 2, lines: 10 },
      { name: 'inner', line: 8, lines: 3 },
    ])
  })

  it(`no function in src/ (but src/testing/) or adapters/ is over ${MAX_LINES} lines`, () => {
    const files = [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'adapters'))]
    expect(files.length).toBeGreaterThan(100)
    const long = files.flatMap((path) =>
      functionLengths(path, readFileSync(path, 'utf8'))
        .filter((f) => f.lines > MAX_LINES)
        .map((f) => `${relative(root, path)}:${f.line} ${f.name}: ${f.lines} lines`),
    )
    expect(long).toEqual([])
  })
})
