/**
 * ESLint with typescript-eslint's type-checked rules (eslint.config.js) is clean on src/ and
 * adapters/: any error fails this test, so CI runs the linter with the tests. Beside it, a check
 * ESLint has no rule for: a `catch` that drops what it caught says why.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { ESLint } from 'eslint'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const root = new URL('..', import.meta.url).pathname

describe('lint', () => {
  it('eslint reports no error in src/ and adapters/', { timeout: 300_000 }, async () => {
    const results = await new ESLint({ cwd: root }).lintFiles(['src', 'adapters'])
    const errors = results.flatMap((r) =>
      r.messages
        .filter((m) => m.severity === 2)
        .map((m) => `${r.filePath.slice(root.length)}:${m.line} ${m.ruleId ?? 'eslint'}: ${m.message}`),
    )
    expect(results.length).toBeGreaterThan(100)
    expect(errors).toEqual([])
  })
})

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sourceFiles(path)
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : []
  })
}

/**
 * The `catch` clauses of a file that drop what they caught (no binding, or one the block never
 * names) without a comment saying why: on the first line of the block, before or after its
 * first statement (`} catch {\n  // why\n` or `return null // why`).
 */
export function unexplainedCatches(path: string, text: string): number[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const lines: number[] = []
  const visit = (node: ts.Node) => {
    if (ts.isCatchClause(node) && dropsCause(node) && !explained(node, text)) {
      lines.push(file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1)
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return lines
}

function dropsCause(clause: ts.CatchClause): boolean {
  const binding = clause.variableDeclaration?.name
  if (!binding || !ts.isIdentifier(binding)) return !binding
  let named = false
  const find = (node: ts.Node) => {
    if (ts.isIdentifier(node) && node.text === binding.text) named = true
    else ts.forEachChild(node, find)
  }
  find(clause.block)
  return !named
}

function explained(clause: ts.CatchClause, text: string): boolean {
  const first = clause.block.statements[0]
  const comments = first
    ? [...(ts.getLeadingCommentRanges(text, first.pos) ?? []), ...(ts.getTrailingCommentRanges(text, first.end) ?? [])]
    : (ts.getLeadingCommentRanges(text, clause.block.getStart() + 1) ?? [])
  return comments.length > 0
}

describe('catch clauses', () => {
  it('finds a catch that drops its error silently, and accepts one that keeps it or says why', () => {
    const code = [
      'try { a() } catch { return null }', // 1: dropped, unexplained
      'try { a() } catch (_e) { b() }', // 2: a binding never named
      'try { a() } catch (e) { throw new Error("x", { cause: e }) }',
      'try { a() } catch {',
      '  // feature detection: no such thing here',
      '  return null',
      '}',
      'try { a() } catch { return null // the parse failing is the answer',
      '}',
      'try { a() } catch {',
      '  // nothing to undo',
      '}',
      'try { a() } catch {}', // 13: empty, unexplained
    ].join('\n')
    expect(unexplainedCatches('x.ts', code)).toEqual([1, 2, 13])
  })

  it('no catch in src/ or adapters/ drops what it caught without a comment saying why', () => {
    const files = [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'adapters'))]
    expect(files.length).toBeGreaterThan(100)
    const found = files.flatMap((path) =>
      unexplainedCatches(path, readFileSync(path, 'utf8')).map((line) => `${relative(root, path)}:${line}`),
    )
    expect(found).toEqual([])
  })
})
