/** The host-side jobs no HTTP route reaches: emptying the trash and extending open-ended series. */
import type { ResolvedOptions } from '../options.js'
import { extendSeries } from '../resources/series-horizon.js'
import { emptyTrash } from '../resources/trash.js'
import type { Storage } from '../storage/types.js'
import { journalTime } from '../storage/journal.js'
import { toUtcString } from '../time/format.js'

export function hostTasks(storage: Storage, options: ResolvedOptions) {
  return {
    async emptyTrash(o: { olderThanDays: number }): Promise<{ deleted: number }> {
      const days = o?.olderThanDays
      // Bounded so the cutoff stays a real date (an invalid one would compare above every record).
      if (typeof days !== 'number' || !Number.isFinite(days) || days < 0 || days > 100_000) {
        throw new TypeError('calendar-events-router: emptyTrash needs { olderThanDays: a number from 0 to 100000 }')
      }
      const cutoff = toUtcString(new Date(options.now().getTime() - days * 86_400_000))
      return { deleted: await emptyTrash(storage, cutoff) }
    },
    async compactJournal(o: { olderThanDays?: number } = {}): Promise<{ removed: number; deliveriesRemoved: number }> {
      const days = o?.olderThanDays ?? options.journalRetentionDays
      if (typeof days !== 'number' || !Number.isFinite(days) || days < 0 || days > 100_000) {
        throw new TypeError('calendar-events-router: compactJournal takes { olderThanDays: a number from 0 to 100000 }')
      }
      // The journal's times are the real clock's (storage/journal.ts), whatever `now` the router has.
      const removed = await storage.compactJournal(journalTime(new Date(Date.now() - days * 86_400_000)))
      // Finished webhook deliveries go by their own retention (docs/webhooks.md), in the same daily job.
      const { retentionDays, keepPerEndpoint } = options.webhooks
      const before = new Date(Date.now() - retentionDays * 86_400_000).toISOString()
      const deliveriesRemoved = storage.webhooks ? await storage.webhooks.prune(before, keepPerEndpoint) : 0
      return { removed, deliveriesRemoved }
    },
    async extendSeries(): Promise<{ added: number }> {
      const { horizonMonths, maxOccurrences } = options.recurrence
      return {
        added: await extendSeries(storage, {
          now: options.now(),
          horizonMonths,
          maxOccurrences,
          languages: options.languages,
          timezone: options.timezone,
        }),
      }
    },
  }
}
