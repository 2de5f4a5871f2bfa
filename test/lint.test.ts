/**
 * ESLint with typescript-eslint's type-checked rules (eslint.config.js) is clean on src/ and
 * adapters/: any error fails this test, so CI runs the linter with the tests.
 */
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

describe('lint', () => {
  it('eslint reports no error in src/ and adapters/', { timeout: 300_000 }, async () => {
    const root = new URL('..', import.meta.url).pathname
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
