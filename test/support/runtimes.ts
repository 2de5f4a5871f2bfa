/**
 * Bun and Deno for the tests that run code on them (test/runtime/bun.test.ts, deno.test.ts and
 * the bun and deno examples in test/examples.test.ts). Their binaries weigh about 200 MB, so they
 * are not devDependencies (a newcomer's `npm ci` would download them for nothing): the first
 * test that needs them installs the pinned versions from the npm registry into
 * `.cache/runtimes/<versions>/`, and later runs reuse that folder.
 *
 * The install goes to a folder of its own first and is renamed into place, so two test files
 * installing at the same time (the first run, both runtimes' files in parallel) never see half
 * a folder; the second rename finds the first one's folder and keeps it.
 */
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

/** Pinned: a runtime update is a change of this file, tested like any other. */
export const RUNTIME_VERSIONS = { bun: '1.4.5', deno: '2.9.5' } as const

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const FOLDER = join(ROOT, '.cache', 'runtimes', `bun-${RUNTIME_VERSIONS.bun}-deno-${RUNTIME_VERSIONS.deno}`)

/** Where `bun` and `deno` are once installed (put it on PATH for npm scripts). */
export const RUNTIME_BIN = join(FOLDER, 'node_modules', '.bin')

/** The path of a runtime's binary, installing both runtimes first if needed. */
export async function runtimeBinary(name: keyof typeof RUNTIME_VERSIONS): Promise<string> {
  await installRuntimes()
  return join(RUNTIME_BIN, name)
}

const installed = () => existsSync(join(RUNTIME_BIN, 'bun')) && existsSync(join(RUNTIME_BIN, 'deno'))

/** Installs the pinned Bun and Deno unless they already are; throws with npm's output if it fails. */
export async function installRuntimes(): Promise<void> {
  if (installed()) return
  // Unique per call: test files run in parallel workers, which may share a process id.
  const staging = `${FOLDER}.tmp-${randomUUID()}`
  mkdirSync(staging, { recursive: true })
  // A project of its own, approving the two install scripts that are the point of it (npm 11
  // otherwise lists them as "not yet covered by allowScripts").
  writeFileSync(join(staging, 'package.json'), JSON.stringify({ private: true, allowScripts: { bun: true, deno: true } }))
  const started = Date.now()
  try {
    // Both packages download their platform's binary through an optional dependency and a
    // postinstall script that puts it in place.
    await promisify(execFile)(
      'npm',
      [
        'install',
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--prefix',
        staging,
        `bun@${RUNTIME_VERSIONS.bun}`,
        `deno@${RUNTIME_VERSIONS.deno}`,
      ],
      { cwd: staging, maxBuffer: 16 * 1024 * 1024, timeout: 600_000 },
    )
  } catch (error) {
    rmSync(staging, { recursive: true, force: true })
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    throw new Error(
      `installing bun@${RUNTIME_VERSIONS.bun} and deno@${RUNTIME_VERSIONS.deno} for the runtime tests failed:\n${stdout}\n${stderr}`,
      {
        cause: error,
      },
    )
  }
  try {
    renameSync(staging, FOLDER)
  } catch (error) {
    rmSync(staging, { recursive: true, force: true })
    // Another process finished first: its folder is as good as ours.
    if (!installed()) throw new Error(`could not move the runtimes into ${FOLDER}`, { cause: error })
    return
  }
  console.log(
    `[runtimes] bun ${RUNTIME_VERSIONS.bun} and deno ${RUNTIME_VERSIONS.deno} installed in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  )
}
