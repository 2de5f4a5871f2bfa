/**
 * Runs a smoke script (test/runtime/smoke/*.mjs) in its runtime and turns each of its `ok` /
 * `not ok` lines into a vitest test, so the runtimes' checks count in the suite's totals.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CHECK_NAMES } from './smoke/checks.mjs'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const BIN = (name: string) => `${ROOT}node_modules/.bin/${name}`

interface Run {
  code: number | null
  stdout: string
  stderr: string
  error?: Error
}

export function run(
  command: string,
  args: string[],
  { cwd = ROOT, env = {}, timeout = 60_000 }: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, timeout, env: { ...process.env, NO_COLOR: '1', ...env }, maxBuffer: 8 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : null) : 0
        resolve({ code, stdout, stderr, ...(error ? { error } : {}) })
      },
    )
  })
}

/** One vitest test per check and storage, plus one for the script's own exit. */
export async function smokeSuite(runtime: string, command: string, args: string[], storages: string[]): Promise<void> {
  const result = await run(command, args)
  const lines = result.stdout.split('\n')
  describe(`${runtime}: the built package over real HTTP`, () => {
    it('runs to the end and exits 0', () => {
      expect(result.stderr.trim() === '' ? '' : result.stderr, 'no output on stderr').toBe('')
      expect(lines, `exit code ${result.code}\n${result.stdout}`).toContain(`${CHECK_NAMES.length * storages.length} passed, 0 failed`)
      expect(result.code).toBe(0)
    })
    for (const storage of storages) {
      for (const name of CHECK_NAMES) {
        it(`${storage}: ${name}`, () => {
          const line = lines.find((l) => l.endsWith(` ${storage}: ${name}`) || l.includes(` ${storage}: ${name} - `))
          expect(line, `no result line for "${storage}: ${name}"\n${result.stdout}\n${result.stderr}`).toBeDefined()
          expect(line).toMatch(/^ok /)
        })
      }
    }
  })
}
