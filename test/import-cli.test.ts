/** The import CLI as a real process (through tsx, as `npm run import` runs it) on a SQLite file. */
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { STUB_AUTH, startTecStub } from './support/tec-stub.js'

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

  it('without --db or --database-url: a usage error naming them, nothing imported (a dry run needs neither)', async () => {
    const r = await cli('test/fixtures/import/google.ics')
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('Give --db FILE or --database-url URL: an import into memory would be lost on exit')
    const dry = await cli('test/fixtures/import/google.ics', '--dry-run', '--json')
    expect(dry.code, dry.stderr).toBe(0)
  })

  it('a source file that does not exist: a clear error, and no database file is created', async () => {
    const file = join(dir, 'never-created.sqlite')
    const r = await cli(join(dir, 'missing.ics'), '--db', file)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`cannot read ${join(dir, 'missing.ics')}: ENOENT`)
    expect(existsSync(file)).toBe(false)
  })

  it('the summary counts events, venues, organizers and terms apart', async () => {
    const r = await cli('test/fixtures/import/google.ics', '--db', join(dir, 'kinds.sqlite'))
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/\n  events: created \d+/)
    expect(r.stdout).toMatch(/\n  venues: created 1/)
  })

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

  it('--batch-size: the same summary whatever the group, with a bad record among them; 0 is a usage error', async () => {
    const one = await cli('test/fixtures/import/bad.ics', '--db', join(dir, 'batch-1.sqlite'), '--batch-size', '1', '--json')
    const two = await cli('test/fixtures/import/bad.ics', '--db', join(dir, 'batch-2.sqlite'), '--batch-size', '2', '--json')
    expect(one.code, one.stderr).toBe(0)
    expect(two.code, two.stderr).toBe(0)
    const summary = (r: { stdout: string }) => {
      const { created, failed, warnings } = JSON.parse(r.stdout)
      return { created, failed, warnings }
    }
    expect(summary(one).created).toBe(2)
    expect(summary(two)).toEqual(summary(one))
    expect((await cli('test/fixtures/import/bad.ics', '--db', db, '--batch-size', '0')).code).toBe(2)
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

  it('--format tec: a TEC site with credentials, then a second run creates nothing; 401 without them is exit 1', async () => {
    const site = await startTecStub()
    try {
      site.requireAuth = true
      const refused = await cli(site.url, '--format', 'tec', '--db', db, '--json')
      expect(refused.code).toBe(1)
      expect(JSON.parse(refused.stdout).failed[0].reason).toMatch(/401/)
      const first = await cli(site.url, '--format', 'tec', '--db', db, '--user', STUB_AUTH, '--json')
      expect(first.code, first.stderr).toBe(0)
      expect(JSON.parse(first.stdout)).toMatchObject({ created: 31 + 3 + 2 + 3 + 2, failed: [] })
      const second = await cli(site.url, '--format', 'tec', '--db', db, '--user', STUB_AUTH)
      expect(second.stdout).toContain('created 0, updated 0, unchanged 41')
    } finally {
      await site.close()
    }
  })
})
