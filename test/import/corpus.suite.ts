/**
 * Issue 39's corpus: small files of our own in the shapes real exporters write (Google, Outlook
 * and Exchange, Apple, Thunderbird, Lotus Notes, KOrganizer, Zimbra, hand-made and broken ones),
 * in test/fixtures/import/corpus/. Every file is imported into an empty store within a budget:
 * nothing hangs or crashes, every failure is a sentence, and each file gives the counts stated
 * below (docs/importing.md restates the table). Registered for memory and SQLite by
 * test/import-memory.test.ts and test/import-sqlite.test.ts.
 */
import { readdirSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { importCalendar } from '../../src/import/index.js'
import type { Storage } from '../../src/storage/types.js'
import { makeApp, type App } from '../http/harness.js'

const DIR = 'test/fixtures/import/corpus'

/** Per file: events created, records failed, warnings, and what the file is there for. */
export const CORPUS: Record<string, [events: number, failed: number, warnings: number, why: string]> = {
  'apple-ical.ics': [3, 0, 0, 'Apple: X-APPLE-STRUCTURED-LOCATION, all-day span, yearly rule with a date UNTIL'],
  'broken-mixed.ics': [2, 3, 0, 'month 13, no DTSTART, a line without a colon: each fails alone'],
  'duplicates-sequence.ics': [1, 0, 1, 'two copies of one UID: SEQUENCE 3 wins over SEQUENCE 1'],
  'empty.ics': [0, 1, 0, 'an empty file'],
  'folded-and-escaped.ics': [1, 0, 0, 'folded lines (space and tab), escaped comma, semicolon, backslash'],
  'google-dates-without-value.ics': [2, 0, 0, 'dates with TZID and no VALUE=DATE, a date-only EXDATE in a timed series'],
  'google-holidays.ics': [7, 0, 0, "Google's holiday calendar: VALUE=DATE one-day events"],
  'google-team.ics': [3, 0, 0, 'Google: weekly rule with EXDATE, a moved occurrence (RECURRENCE-ID), attendees, alarms'],
  'hostile-duration.ics': [1, 1, 0, 'DURATION:P999999999999999999W fails alone, the next event comes in'],
  'html-description.ics': [1, 0, 0, 'script in DESCRIPTION and X-ALT-DESC, GEO'],
  'impossible-rule.ics': [0, 2, 0, 'rules with no occurrence (February 30th), daily and yearly'],
  'korganizer.ics': [2, 0, 0, 'KOrganizer: monthly 2nd Tuesday, TZID without VTIMEZONE, a VTODO beside'],
  'latin1-export.ics': [1, 0, 1, 'a Latin-1 file'],
  'lf-only-line-endings.ics': [1, 0, 0, 'LF line ends instead of CRLF'],
  'lotus-notes-periods.ics': [3, 0, 2, 'Lotus Notes: TZID "Central" from its VTIMEZONE, RDATE;VALUE=PERIOD'],
  'multiple-rrules.ics': [6, 0, 1, 'two RRULE lines'],
  'not-a-calendar.ics': [0, 1, 0, 'an HTML login page where a feed was expected'],
  'outlook-custom-zone.ics': [1, 0, 1, 'Outlook "Customized Time Zone" (Sydney rules), Mon-Fri stand-up'],
  'outlook-windows-zone.ics': [2, 0, 0, 'Outlook: Windows zone name quoted, X-MICROSOFT-CDO-*, weekly rule'],
  'owa-no-uid.ics': [3, 0, 3, 'Exchange/OWA export without UIDs'],
  'rfc-durations.ics': [3, 0, 0, 'PT24H across the autumn change, P1W on a date, no DTEND'],
  'thunderbird-lightning.ics': [2, 0, 0, 'Thunderbird: weekly rule with a UTC EXDATE, categories, alarm'],
  'todo-journal-only.ics': [0, 0, 1, 'only VTODO and VJOURNAL'],
  'truncated.ics': [1, 1, 0, 'a file cut off inside its last event'],
  'tzid-path-and-display.ics': [1, 1, 0, 'a libical path TZID, a TZID known nowhere'],
  'zimbra.ics': [2, 0, 0, 'Zimbra: quoted TZID, a cancelled event'],
}

// What an internal error looks like when it leaks: none of these may reach a user.
const NOT_A_SENTENCE = /Invalid time value|undefined|\[object|NaN|TypeError|ReferenceError|\n\s+at /

export function corpusSuite(backend: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`importer corpus [${backend}]`, () => {
    let app: App
    afterEach(async () => app?.close())

    it('the table names every file of the corpus', () => {
      expect(readdirSync(DIR).sort()).toEqual(Object.keys(CORPUS).sort())
    })

    it.each(Object.entries(CORPUS))('%s', async (file, [events, failed, warnings]) => {
      app = await makeApp(makeStorage)
      const s = await importCalendar(app.router, {
        format: 'ics',
        location: `${DIR}/${file}`,
        budget: { sourceMs: 10_000, eventMs: 2_000 },
      })
      for (const f of [...s.failed, ...s.warnings]) {
        expect(f.ref).toMatch(/\S/)
        expect(f.reason).toMatch(/^\S.{8,}$/s)
        expect(f.reason).not.toMatch(NOT_A_SENTENCE)
      }
      expect([s.kinds.event?.created ?? 0, s.failed.length, s.warnings.length]).toEqual([events, failed, warnings])
      // What the summary says was created is there to read.
      const list = await app.get('/events?start_date=2000-01-01&end_date=2100-01-01&per_page=100&status=publish,private,draft', {
        as: 'administrator',
      })
      expect(list.status).toBe(200)
      expect(list.body.total ?? 0).toBeGreaterThanOrEqual(events)
    })
  })
}
