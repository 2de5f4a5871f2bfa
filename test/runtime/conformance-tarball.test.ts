/**
 * The HTTP conformance suites as a backend's author runs them (issue 34): the packed tarball
 * installed into a project of its own, with none of this repository's development tools, and a
 * `node --test` file that imports `calendar-events-router/testing` and
 * `calendar-events-router/storage/memory` and runs `httpConformance` with node:test's own
 * `describe` and `it`. Every case must pass, and there must be at least 400 of them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { run } from './smoke.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-conformance-'))

const CONFORMANCE = `import { describe, it } from 'node:test'
import { httpConformance } from 'calendar-events-router/testing'
import { createMemoryStorage } from 'calendar-events-router/storage/memory'

httpConformance({ describe, it }, 'memory', () => createMemoryStorage())
`

beforeAll(async () => {
  // dist/ is built by the globalSetup: no prepack rebuild here.
  const packed = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir, '--no-audit', '--no-fund'])
  expect(packed.code, packed.stderr).toBe(0)
  const tarball = join(dir, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-backend', private: true, type: 'module' }))
  const installed = await run('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, timeout: 120_000 })
  expect(installed.code, installed.stderr).toBe(0)
  writeFileSync(join(dir, 'conformance.test.mjs'), CONFORMANCE)
}, 180_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The totals of node:test's TAP report (`# pass 431`, `# fail 0` ...). */
function tapTotals(tap: string): Record<string, number> {
  const totals: Record<string, number> = {}
  for (const m of tap.matchAll(/^# (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) totals[m[1]!] = Number(m[2])
  return totals
}

describe('httpConformance from the packed tarball', () => {
  it('runs under node --test against the memory backend: at least 400 cases, every one passing', async () => {
    const result = await run(process.execPath, ['--test', '--test-reporter=tap', 'conformance.test.mjs'], { cwd: dir, timeout: 900_000 })
    const totals = tapTotals(result.stdout)
    const failures = [...result.stdout.matchAll(/^\s*not ok \d+ - (.*)$/gm)].map((m) => m[1]).slice(0, 10)
    expect(totals.fail, `failed: ${failures.join(' | ')}\n${result.stderr.slice(0, 2000)}`).toBe(0)
    expect(totals.cancelled ?? 0).toBe(0)
    expect(totals.skipped ?? 0).toBe(0)
    expect(totals.pass).toBeGreaterThanOrEqual(400)
    expect(result.code, result.stderr).toBe(0)
    console.log(`[conformance] node --test from the tarball: ${totals.pass} passed, ${totals.fail} failed (${totals.suites} suites)`)
  }, 900_000)

  it('reads the totals of a TAP report', () => {
    expect(tapTotals('ok 1 - a\n# tests 3\n# suites 1\n# pass 2\n# fail 1\n# cancelled 0\n')).toEqual({
      tests: 3,
      suites: 1,
      pass: 2,
      fail: 1,
      cancelled: 0,
    })
  })
})
