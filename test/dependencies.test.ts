/**
 * The dependencies fit what the package promises: every package the lockfile installs declares
 * a Node.js range that includes the oldest Node.js of our `engines` (so installing on it warns
 * about nothing), and every package with an install script is named in `allowScripts` (so an
 * npm that runs only the scripts listed there still installs the project). sanitize-html 2.18
 * declared Node 22.12 while we promise 20.19; this test failed on it.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { TOOL_VERSIONS } from './support/tools.js'

const require = createRequire(import.meta.url)
// semver is npm's own range matcher; it comes with the toolchain (a dependency of several dev tools).
const semver = require('semver') as {
  satisfies(v: string, range: string, o?: { includePrerelease?: boolean }): boolean
  minVersion(r: string): { version: string } | null
}

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string }
  allowScripts?: Record<string, boolean>
}
const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; hasInstallScript?: boolean; optional?: boolean; dev?: boolean }>
}

const oldest = semver.minVersion(pkg.engines.node)!.version
const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)

describe('dependencies', () => {
  it(`every installed package accepts Node.js ${oldest}, the oldest our engines promise`, () => {
    const refused: string[] = []
    for (const [path, p] of Object.entries(lock.packages)) {
      // An optional package that does not fit is skipped by npm, silently (it is not installed).
      if (!path || p.optional) continue
      const range = p.engines && !Array.isArray(p.engines) ? p.engines.node : undefined
      if (range && !semver.satisfies(oldest, range, { includePrerelease: true })) refused.push(`${nameOf(path)} wants node ${range}`)
    }
    expect(refused).toEqual([])
  })

  it('every package with an install script is named in allowScripts', () => {
    const scripted = Object.entries(lock.packages)
      .filter(([path, p]) => path && p.hasInstallScript)
      .map(([path]) => nameOf(path))
    expect(scripted.length).toBeGreaterThan(0)
    for (const name of new Set(scripted)) expect(pkg.allowScripts, name).toHaveProperty([name])
    // The one whose script the project needs runs it: the native SQLite addon.
    expect(pkg.allowScripts).toMatchObject({ 'better-sqlite3': true })
  })

  it('npm ci installs no runtime binaries: Bun and Deno come with the tests that run them', () => {
    // About 200 MB a newcomer's `npm ci` would download for a handful of tests
    // (test/support/runtimes.ts installs them on demand, pinned).
    const dev = Object.keys((pkg as { devDependencies?: Record<string, string> }).devDependencies ?? {})
    expect(dev.filter((name) => ['bun', 'deno'].includes(name))).toEqual([])
    const installed = Object.keys(lock.packages).map(nameOf)
    expect(installed.filter((name) => /^(bun|deno|@oven\/bun-.*|@deno\/.*)$/.test(name))).toEqual([])
    expect(Object.keys(pkg.allowScripts ?? {}).filter((name) => ['bun', 'deno'].includes(name))).toEqual([])
    // `npm pack` leaves the tarball in the checkout, and the runtimes their cache: neither is committed.
    const ignored = readFileSync(new URL('../.gitignore', import.meta.url), 'utf8').split('\n')
    expect(ignored).toEqual(expect.arrayContaining(['*.tgz', '.cache/']))
  })

  it('npm ci installs no tool that a single test uses and that weighs tens of MB', () => {
    // arethetypeswrong (33 MB, test/runtime/package.test.ts) and openapi-typescript (20 MB,
    // test/typed-client.test.ts) come pinned with their tests (test/support/tools.ts); madge
    // (24 MB, the import-cycle check) gave way to TypeScript's own scanner.
    const dev = Object.keys((pkg as { devDependencies?: Record<string, string> }).devDependencies ?? {})
    const onDemand = Object.keys(TOOL_VERSIONS)
    expect(dev.filter((name) => [...onDemand, 'madge'].includes(name))).toEqual([])
    const installed = new Set(Object.keys(lock.packages).map(nameOf))
    expect(['madge', '@arethetypeswrong/core', '@redocly/openapi-core', ...onDemand].filter((name) => installed.has(name))).toEqual([])
  })
})

describe('runtime dependencies', () => {
  const runtime = Object.keys((pkg as { dependencies?: Record<string, string> }).dependencies ?? {})
  const sources = (dir: string): string[] =>
    readdirSync(new URL(`../${dir}/`, import.meta.url), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? sources(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
    )
  const importers = (name: string, files: string[]) =>
    files.filter((file) => {
      const text = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')
      return text.includes(`from '${name}'`) || text.includes(`from '${name}/`)
    })

  it('every runtime dependency is used by the library, not by the CLI alone', () => {
    // A library user installs every runtime dependency; what only the CLI needs costs them all.
    const library = [...sources('src'), ...sources('adapters')].filter((file) => file !== 'src/import/cli.ts')
    expect(runtime.filter((name) => importers(name, library).length === 0)).toEqual([])
  })

  it('the lockfile installs one htmlparser2', () => {
    // Ours and sanitize-html's: two copies of a parser is twice the code and two behaviours.
    const copies = Object.entries(lock.packages)
      .filter(([path]) => nameOf(path) === 'htmlparser2')
      .map(([path, p]) => `${path}@${(p as { version?: string }).version}`)
    expect(copies).toHaveLength(1)
  })
})
