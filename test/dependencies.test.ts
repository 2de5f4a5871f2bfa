/**
 * The dependencies fit what the package promises: every package the lockfile installs declares
 * a Node.js range that includes the oldest Node.js of our `engines` (so installing on it warns
 * about nothing), and every package with an install script is named in `allowScripts` (so an
 * npm that runs only the scripts listed there still installs the project). sanitize-html 2.18
 * declared Node 22.12 while we promise 20.19; this test failed on it.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'

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
    // The ones whose scripts the project needs run them: the native SQLite addon and Bun's binary.
    expect(pkg.allowScripts).toMatchObject({ 'better-sqlite3': true, bun: true })
  })
})
