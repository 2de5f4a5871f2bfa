/** A feed expanded by ical.js's own expander, to compare with the JSON list (the recurrence suites). */
import ICAL from 'ical.js'

/** How the JSON and the expanded feed name an occurrence: UTC start and end, and title. */
export const occurrenceKey = (e: { utc_start_date: string; utc_end_date: string; title: string }) =>
  `${e.utc_start_date} ${e.utc_end_date} ${e.title}`

/** Series id → sorted "utc-start utc-end title" strings, from the feed, expanded by ical.js. */
export function expandFeed(text: string, limit: string): Map<string, string[]> {
  const root = new ICAL.Component(ICAL.parse(text))
  for (const tz of root.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(tz)
  // ical.js relates every RECURRENCE-ID of the calendar to every master unless told which: by UID.
  const events = root.getAllSubcomponents('vevent').map((c) => new ICAL.Event(c, { strictExceptions: true, exceptions: [] }))
  const masters = new Map<string, ICAL.Event>()
  for (const e of events) if (!e.isRecurrenceException()) masters.set(e.uid, e)
  for (const e of events) if (e.isRecurrenceException()) masters.get(e.uid)!.relateException(e)
  const out = new Map<string, string[]>()
  for (const [uid, master] of masters) {
    const list: string[] = []
    const it = master.iterator()
    for (let next = it.next(); next; next = it.next()) {
      const details = master.getOccurrenceDetails(next)
      const utc = details.startDate.toJSDate().toISOString()
      if (utc > limit) break
      const end = details.endDate.toJSDate().toISOString()
      const wall = (iso: string) => iso.slice(0, 19).replace('T', ' ')
      list.push(`${wall(utc)} ${wall(end)} ${details.item.summary}`)
      if (list.length > 2000) break
    }
    out.set(uid.split('@')[0]!, list.sort())
  }
  return out
}
