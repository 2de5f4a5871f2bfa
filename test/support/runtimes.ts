/**
 * Bun and Deno for the tests that run code on them (test/runtime/bun.test.ts, deno.test.ts and
 * the bun and deno examples in test/examples.test.ts). Their binaries weigh about 200 MB, so they
 * are not devDependencies (a newcomer's `npm ci` would download them for nothing): the first
 * test that needs them installs the pinned versions from the npm registry into
 * `.cache/runtimes/<versions>/` (test/support/pinned-install.ts), and later runs reuse that folder.
 */
import { join } from 'node:path'
import { installPinned, pinnedFolder, type PinnedSet } from './pinned-install.js'

/** Pinned: a runtime update is a change of this file, tested like any other. */
export const RUNTIME_VERSIONS = { bun: '1.4.5', deno: '2.9.5' } as const

const RUNTIMES: PinnedSet = {
  folder: join('runtimes', `bun-${RUNTIME_VERSIONS.bun}-deno-${RUNTIME_VERSIONS.deno}`),
  packages: RUNTIME_VERSIONS,
  // Both download their platform's binary through an optional dependency and a postinstall
  // script that puts it in place: the two scripts this install exists for.
  allowScripts: ['bun', 'deno'],
  marks: [join('node_modules', '.bin', 'bun'), join('node_modules', '.bin', 'deno')],
}

/** Where `bun` and `deno` are once installed (put it on PATH for npm scripts). */
export const RUNTIME_BIN = join(pinnedFolder(RUNTIMES), 'node_modules', '.bin')

/** The path of a runtime's binary, installing both runtimes first if needed. */
export async function runtimeBinary(name: keyof typeof RUNTIME_VERSIONS): Promise<string> {
  await installRuntimes()
  return join(RUNTIME_BIN, name)
}

/** Installs the pinned Bun and Deno unless they already are; throws with npm's output if it fails. */
export async function installRuntimes(): Promise<void> {
  await installPinned(RUNTIMES)
}
