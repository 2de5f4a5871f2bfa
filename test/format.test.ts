/**
 * The sources keep one format (.prettierrc.json): a change that is not formatted fails here,
 * naming the files; `npm run format` fixes them.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { execFileSync } from 'node:child_process'
import * as prettier from 'prettier'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
// Tracked and new (not ignored) TypeScript files of the folders prettier owns.
const files = execFileSync(
  'git',
  ['ls-files', '--cached', '--others', '--exclude-standard', '--', 'src', 'adapters', 'test', 'examples', 'bench'],
  {
    cwd: root,
    encoding: 'utf8',
  },
)
  .split('\n')
  .filter((f) => f.endsWith('.ts'))

describe('formatting', () => {
  it('every TypeScript source is formatted with the project prettier settings', { timeout: 60_000 }, async () => {
    expect(files.length).toBeGreaterThan(100)
    const options = await prettier.resolveConfig(`${root}src/index.ts`)
    expect(options?.printWidth).toBe(140)
    const unformatted: string[] = []
    for (const file of files) {
      let source: string
      try {
        source = readFileSync(`${root}${file}`, 'utf8')
      } catch {
        continue // listed by git but deleted in the working tree
      }
      if (!(await prettier.check(source, { ...options, filepath: `${root}${file}` }))) unformatted.push(file)
    }
    expect(unformatted).toEqual([])
  })
})
