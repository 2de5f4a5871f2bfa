/**
 * Scheduled imports against hostile sources on the example server (issue 39, finding 13 and the
 * runner): while a feed whose parsing never ends is imported, the server keeps answering reads
 * over HTTP; the feed ends at its budget with a sentence in the log, the next source is imported
 * and the next run starts. The p99 latency of those reads is measured in bench/import-hostile.bench.ts.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startServer } from '../examples/node-server/server.js'
import { scheduleImports } from '../examples/node-server/imports.js'
import { runImports } from '../src/import/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createCalendarRouter } from '../src/router.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-import-scheduled-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const GOOD = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//scheduled//EN',
  'BEGIN:VEVENT',
  'UID:after-the-hostile-one@example.org',
  'DTSTART:20270315T180000Z',
  'DTEND:20270315T200000Z',
  'SUMMARY:Imported after the hostile feed',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n')

describe('scheduled imports of hostile sources', () => {
  it('the example server answers every read while a feed that never ends is imported; the feed ends at its budget and the next source is imported', async () => {
    const hostile = join(dir, 'endless.ics')
    copyFileSync('test/fixtures/import/hostile/endless-rules.ics', hostile)
    const good = join(dir, 'good.ics')
    writeFileSync(good, GOOD)
    const lines: string[] = []
    const log = console.log
    console.log = (line: string) => void lines.push(String(line))
    let started: Awaited<ReturnType<typeof startServer>> | undefined
    try {
      started = await startServer({
        PORT: '0',
        HOST: '127.0.0.1',
        CALENDAR_DEMO: 'off',
        CALENDAR_STORAGE: 'memory',
        CALENDAR_API_TOKENS: 'admintoken:administrator',
        CALENDAR_IMPORT_SOURCES: JSON.stringify([
          { format: 'ics', location: hostile, budget: { eventMs: 1000, sourceMs: 3000 } },
          { format: 'ics', location: good },
        ]),
      })
      const root = `http://127.0.0.1:${started.port}/wp-json/calendar/events/v1`
      let importing = true
      const done = started.imports.running().then(() => (importing = false))
      const statuses: number[] = []
      while (importing) {
        const res = await fetch(`${root}/events?start_date=2027-01-01&end_date=2027-12-31`)
        await res.arrayBuffer()
        // Counted only when answered while the import still ran.
        if (importing) statuses.push(res.status)
      }
      await done
      // A blocked event loop would answer nothing until the import ended.
      expect(statuses.length).toBeGreaterThanOrEqual(5)
      expect(new Set(statuses)).toEqual(new Set([200]))
      expect(lines.join('\n')).toContain(
        `import ics:${hostile}: created 0, updated 0, unchanged 0, trashed 0, failed 1\n  failed source: over budget: reading the file took more than 3000 ms (budget.sourceMs)`,
      )
      const list = (await (await fetch(`${root}/events?start_date=2027-03-01&end_date=2027-03-31`)).json()) as {
        events: Array<{ title: string }>
      }
      expect(list.events.map((e) => e.title)).toEqual(['Imported after the hostile feed'])
    } finally {
      console.log = log
      if (started) await new Promise<void>((resolve) => started!.server.close(() => resolve()))
      await started?.storage.close?.()
    }
  })

  it('runImports reports a source that cannot even start (an unknown format) and goes on with the next', async () => {
    const router = createCalendarRouter(createMemoryStorage())
    const good = join(dir, 'next.ics')
    writeFileSync(good, GOOD)
    const summaries = await runImports(router, [
      { format: 'xls' as 'ics', location: 'a.xls' },
      { format: 'ics', location: good },
    ])
    expect(summaries.map((s) => [s.source, s.created, s.failed])).toEqual([
      [`xls:${resolve('a.xls')}`, 0, [{ ref: 'source', reason: 'calendar-events-router: unknown import format xls' }]],
      [`ics:${good}`, 1, []],
    ])
  })

  it('a later run starts after a run whose source blew its budget', async () => {
    const hostile = join(dir, 'endless-again.ics')
    copyFileSync('test/fixtures/import/hostile/endless-rule.ics', hostile)
    const router = createCalendarRouter(createMemoryStorage())
    const lines: string[] = []
    const imports = scheduleImports(
      router,
      {
        CALENDAR_IMPORT_SOURCES: JSON.stringify([{ format: 'ics', location: hostile, budget: { eventMs: 500 } }]),
        // 0.6 s between runs.
        CALENDAR_IMPORT_EVERY: '0.01',
      },
      (line) => lines.push(line),
    )
    try {
      for (let i = 0; i < 600 && lines.length < 2; i++) await new Promise((r) => setTimeout(r, 50))
      expect(lines.slice(0, 2)).toEqual([
        `import ics:${hostile}: created 1, updated 0, unchanged 0, trashed 0, failed 1\n  failed UID hourly-feb30@hostile.test: reading it took more than 500 ms (budget.eventMs): not imported`,
        `import ics:${hostile}: created 0, updated 0, unchanged 1, trashed 0, failed 1\n  failed UID hourly-feb30@hostile.test: reading it took more than 500 ms (budget.eventMs): not imported`,
      ])
    } finally {
      imports.stop()
      await imports.running()
    }
  })
})
