/**
 * The worker that parses a downloaded file (sandbox.ts starts it): iCalendar event by event,
 * each event's records posted as soon as they are read, so the main thread knows which event is
 * running when one takes too long; CSV in one piece. Nothing here touches storage or the network.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { readCsv, type CsvOptions } from '../readers/csv.js'
import { planIcs, type IcsOptions } from '../readers/ics.js'
import type { SourceRecord } from '../readers/types.js'

export interface ParseJob {
  format: 'ics' | 'csv'
  text: string
  ics?: Omit<IcsOptions, 'now'> & { now?: number }
  csv?: CsvOptions
  /** Events already read, or given up on, by an earlier worker of the same job. */
  skip: number[]
}

export type ParseMessage =
  | { type: 'ready'; refs: string[] }
  | { type: 'event'; index: number; records: SourceRecord[] }
  | { type: 'done'; records?: SourceRecord[] }
  | { type: 'error'; message: string }

function run(job: ParseJob, post: (m: ParseMessage) => void) {
  if (job.format === 'csv') return post({ type: 'done', records: readCsv(job.text, job.csv) })
  const { now, ...rest } = job.ics ?? {}
  const plan = planIcs(job.text, { ...rest, ...(now !== undefined ? { now: new Date(now) } : {}) })
  if (Array.isArray(plan)) return post({ type: 'done', records: plan })
  post({ type: 'ready', refs: plan.refs })
  const skip = new Set(job.skip)
  for (let i = 0; i < plan.refs.length; i++) if (!skip.has(i)) post({ type: 'event', index: i, records: plan.read(i) })
  post({ type: 'done' })
}

const job = (workerData as { job?: ParseJob } | null)?.job
if (parentPort && job) {
  const port = parentPort
  try {
    run(job, (m) => port.postMessage(m))
  } catch (e) {
    port.postMessage({ type: 'error', message: e instanceof Error ? e.message : String(e) } satisfies ParseMessage)
  }
}
