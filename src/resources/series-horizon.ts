/**
 * The horizon of open-ended series: a rule without COUNT or UNTIL has its occurrences written
 * only so far ahead (`recurrence.horizonMonths`), and the horizon moves on when the host runs
 * `extendSeries` (a daily job) or a write names an occurrence past it (`materialize`). A read
 * never moves it: it shows what lies past it computed (provisional.ts), with the ids the
 * occurrences are written with here. Series are written by the request handlers (series.ts);
 * this module only moves their horizon.
 */
import type { Context } from '../context.js'
import { expandRule, parseRule } from '../recurrence/index.js'
import type { EventRecord, Storage } from '../storage/types.js'
import { addMonths, dayEnd } from '../time/format.js'
import { utcToLocal } from '../time/zone.js'
import { insertOccurrence, type Clock } from './occurrences.js'
import { provisionalId } from './provisional.js'

/**
 * How far ahead of wall-clock `from` open-ended series are written: to the end of the day
 * `months` later. Whole days, as the default list window is: its last day shows every
 * occurrence of that day.
 */
export const horizonOf = (from: string, months: number): string => dayEnd(addMonths(from, months))

/**
 * Writes the occurrences of open-ended series up to the horizon from `now` (`horizonMonths`
 * ahead). Hosts call it from a scheduler (daily is plenty); it returns how many occurrences it
 * added. `seriesIds`: only these series (default: every open-ended series in the store).
 */
export async function extendSeries(
  storage: Storage,
  options: {
    now?: Date
    horizonMonths?: number
    maxOccurrences?: number
    seriesIds?: number[]
    /** Languages whose series are looked for (default ['en']). */
    languages?: string[]
    /** The site's zone, for the publication date of new occurrences (default UTC). */
    timezone?: string
    /** Write up to this wall-clock time when it lies past the horizon (a list asked that far). */
    until?: string
  } = {},
): Promise<number> {
  const now = options.now ?? new Date()
  const ids = options.seriesIds ?? (await openEndedHeads(storage, options.languages ?? ['en']))
  let added = 0
  for (const id of ids) {
    added += await storage.transaction(async (tx) => {
      const head = await tx.getPost(id)
      if (!head || head.type !== 'event' || head.seriesId !== head.id || !head.series?.rule?.through) return 0
      const nowLocal = utcToLocal(now.toISOString().slice(0, 19).replace('T', ' '), head.timezone)
      const ahead = horizonOf(nowLocal, options.horizonMonths ?? 24)
      const horizon = options.until && options.until > ahead ? options.until : ahead
      const rule = head.series.rule
      if (horizon <= rule.through!) return 0
      const cap = options.maxOccurrences ?? 1000
      // Series written before id blocks existed get theirs now (provisional.ts).
      const ids = rule.ids ?? (tx.reserveIds ? await tx.reserveIds(head.id) : undefined)
      const members = await tx.seriesMembers(head.id)
      const starts = expandRule(parseRule(rule.rrule), head.series.original, { timezone: head.timezone, horizon, max: cap })
      const have = new Set(members.map((m) => m.series?.original.slice(0, 10)))
      const skip = new Set(rule.exdate.map((d) => d.slice(0, 10)))
      const nowUtc = now.toISOString().slice(0, 19).replace('T', ' ')
      const ctx: Clock = { nowLocal: utcToLocal(nowUtc, options.timezone ?? 'UTC'), nowUtc }
      let n = 0
      for (let i = 0; i < starts.length; i++) {
        const s = starts[i]!
        if (s <= rule.through! || have.has(s.slice(0, 10)) || skip.has(s.slice(0, 10))) continue
        // The id a read showed it under before it was written (provisional.ts), unless taken.
        const id = provisionalId(ids, i + 1)
        await insertOccurrence(ctx, tx, head, head, s, i + 1, id !== null && !(await tx.getPost(id)) ? id : undefined)
        n++
      }
      await tx.updatePost(head.id, 'event', {
        series: { ...head.series, rule: { ...rule, through: horizon, ...(ids !== undefined ? { ids } : {}) } },
      })
      return n
    })
  }
  return added
}

/** Heads of open-ended series (listed ones, in these languages): first occurrences whose rule has a `through`. */
async function openEndedHeads(storage: Storage, languages: string[]): Promise<number[]> {
  const out = new Set<number>()
  const statuses = ['publish', 'future', 'draft', 'pending', 'private'] as const
  for (const language of languages) {
    for (let offset = 0; ; offset += 500) {
      const page = await storage.listEvents({ language, statuses, orderBy: 'start', offset, limit: 500, parentId: 0 })
      for (const e of page.items) if (e.seriesId === e.id && e.series?.rule?.through) out.add(e.id)
      if (page.items.length < 500) break
    }
  }
  return [...out]
}

/**
 * Writes the series of the provisional occurrence `shown` up to its day (a write names it), and
 * returns it as stored: under the id it was shown with. Null when the series no longer places it.
 */
export async function materialize(ctx: Context, shown: EventRecord): Promise<EventRecord | null> {
  await extendSeries(ctx.storage, {
    now: ctx.now,
    until: dayEnd(shown.startDate),
    horizonMonths: ctx.options.recurrence.horizonMonths,
    maxOccurrences: ctx.options.recurrence.maxOccurrences,
    seriesIds: [shown.seriesId!],
    languages: [shown.language],
    timezone: ctx.options.timezone,
  })
  const stored = await ctx.storage.getPost(shown.id)
  return stored?.type === 'event' ? stored : null
}
