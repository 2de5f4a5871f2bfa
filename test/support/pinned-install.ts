/**
 * Installs pinned npm packages into a folder of `.cache/` the first time a test needs them, for
 * the heavy tools and runtimes that only a few tests use (a newcomer's `npm ci` would download
 * them for nothing): test/support/runtimes.ts (Bun, Deno) and test/support/tools.ts
 * (arethetypeswrong, openapi-typescript). Later runs reuse the folder; a version change is a new
 * folder name, so a stale install is never used.
 *
 * The install goes to a staging folder of its own first and is renamed into place, so two test
 * files installing at the same time (the first run, files in parallel workers) never see half a
 * folder; the second rename finds the first one's folder and keeps it.
 */
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface PinnedSet {
  /** The folder's name under `.cache/`, e.g. `runtimes/bun-1.4.5-deno-2.9.5`; carries the versions. */
  folder: string
  /** Package name → exact version. */
  packages: Record<string, string>
  /** Packages whose install scripts run (npm 11's allowScripts); the others' do not. */
  allowScripts?: string[]
  /** Files (relative to the folder) whose presence means the install is complete. */
  marks: string[]
}

/** The absolute path of a pinned set's folder. */
export const pinnedFolder = (set: PinnedSet): string => join(ROOT, '.cache', set.folder)

const complete = (set: PinnedSet) => set.marks.every((mark) => existsSync(join(pinnedFolder(set), mark)))

/** Installs the set unless it already is; throws with npm's output if it fails. Returns the folder. */
export async function installPinned(set: PinnedSet): Promise<string> {
  const folder = pinnedFolder(set)
  if (complete(set)) return folder
  // Unique per call: test files run in parallel workers, which may share a process id.
  const staging = `${folder}.tmp-${randomUUID()}`
  mkdirSync(staging, { recursive: true })
  // A project of its own, approving only the install scripts that are the point of it (npm 11
  // otherwise lists them as "not yet covered by allowScripts").
  const allowScripts = Object.fromEntries((set.allowScripts ?? []).map((name) => [name, true]))
  writeFileSync(join(staging, 'package.json'), JSON.stringify({ private: true, allowScripts }))
  const specs = Object.entries(set.packages).map(([name, version]) => `${name}@${version}`)
  const started = Date.now()
  try {
    await promisify(execFile)(
      'npm',
      ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', staging, ...specs],
      { cwd: staging, maxBuffer: 16 * 1024 * 1024, timeout: 600_000 },
    )
  } catch (error) {
    rmSync(staging, { recursive: true, force: true })
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    throw new Error(`installing ${specs.join(' ')} for the tests failed:\n${stdout}\n${stderr}`, { cause: error })
  }
  try {
    renameSync(staging, folder)
  } catch (error) {
    rmSync(staging, { recursive: true, force: true })
    // Another process finished first: its folder is as good as ours.
    if (!complete(set)) throw new Error(`could not move ${specs.join(' ')} into ${folder}`, { cause: error })
    return folder
  }
  console.log(`[pinned] ${specs.join(' ')} installed in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  return folder
}
