/** The import CLI as a real process (through tsx, as `npm run import` runs it) on a SQLite file. */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const dir = mkdtempSync(join(tmpdir(), 'calendar-import-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/import/cli.ts', 'import', ...args], { timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })
}

describe('import CLI', () => {
  const db = join(dir, 'cli.sqlite')

  it('imports a file into SQLite, then a second run creates nothing (--json)', async () => {
    const first = await cli('test/fixtures/import/google.ics', '--format', 'ics', '--db', db, '--json')
    expect(first.code, first.stderr).toBe(0)
    expect(JSON.parse(first.stdout)).toMatchObject({ created: 6, failed: [] })
    const second = await cli('test/fixtures/import/google.ics', '--db', db, '--json')
    expect(JSON.parse(second.stdout)).toMatchObject({ created: 0, updated: 0, unchanged: 6 })
  })

  it('prints every failure with its reason and exits 0 when something was imported', async () => {
    const r = await cli('test/fixtures/import/bad.ics', '--db', db)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('created 2')
    expect(r.stdout).toContain('UID unknown-zone@example.org, VEVENT at line 16: DTSTART names an unknown TZID "Mars/Olympus_Mons"')
  })

  it('CSV with a mapping, dry run: nothing written', async () => {
    const r = await cli(
      'test/fixtures/import/custom-mapping.csv',
      '--db',
      db,
      '--dry-run',
      '--json',
      '--delimiter',
      ';',
      '--key',
      'id',
      '--map',
      'event_name=Title',
      '--map',
      'event_start_date=Day',
      '--map',
      'event_start_time=From',
      '--map',
      'event_end_time=To',
    )
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ created: 2, dryRun: true })
    const again = await cli(
      'test/fixtures/import/custom-mapping.csv',
      '--db',
      db,
      '--json',
      '--delimiter',
      ';',
      '--key',
      'id',
      '--map',
      'event_name=Title',
      '--map',
      'event_start_date=Day',
      '--map',
      'event_start_time=From',
      '--map',
      'event_end_time=To',
    )
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 2 })
  })

  it('exits 1 when the source is unreadable, 2 on a usage error', async () => {
    expect((await cli('test/fixtures/import/missing.ics', '--db', db)).code).toBe(1)
    expect((await cli('http://127.0.0.1:9/feed.ics', '--format', 'ics', '--db', db)).code).toBe(1)
    expect((await cli('x.ics', '--authority', 'maybe', '--db', db)).code).toBe(2)
  })
})
