/**
 * The routing of one request's reads (storage/sql/session.ts) and the replicas' health
 * (storage/sql/replicas.ts), over fakes: which server each read goes to, without a database.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import type { SqlConnection, SqlReplicas } from '../../../src/storage/sql/driver.js'
import type { Db } from '../../../src/storage/sql/db.js'
import type { SqlJournal } from '../../../src/storage/sql/journal.js'
import { formatLsn, parseLsn, ReplicaHealth, type LsnSource } from '../../../src/storage/sql/replicas.js'
import { ReplicaSession } from '../../../src/storage/sql/session.js'
import type { Storage } from '../../../src/storage/types.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits (polls) until `check` holds; fails after 5 s. Timers may run late on a loaded machine. */
async function until(check: () => boolean) {
  for (const deadline = performance.now() + 5000; !check(); await sleep(5)) {
    if (performance.now() > deadline) throw new Error('the condition never held')
  }
}

/** Replicas that take turns, and a record of where each read ran ('p' for the primary). */
function fakeHost(failOn: Set<number> = new Set()) {
  const ran: Array<number | 'p'> = []
  let turn = 0
  const replicas: SqlReplicas = {
    choose: () => turn++ % 2,
    probe: async () => null,
    read: () => Promise.reject(new Error('not used')),
    failed: () => undefined,
    counts: () => ({ replicas: [], primary: 0 }),
    primaryRead: () => undefined,
  }
  const via = async <T>(replica: number | null, fn: (db: Db) => Promise<T>): Promise<T> => {
    await sleep(1)
    if (replica !== null && failOn.has(replica)) throw Object.assign(new Error('gone'), { code: '57P01' })
    ran.push(replica ?? 'p')
    return fn({ conn: {} as SqlConnection } as Db)
  }
  return { ran, host: { replicas, journal: {} as SqlJournal, via, followed: async () => undefined } }
}

const reads = (session: ReplicaSession) => session as unknown as { use<T>(fn: (db: Db) => Promise<T>): Promise<T> }

describe('a request on replicas', () => {
  it('reads from one replica for the whole request, concurrent reads included', async () => {
    const { ran, host } = fakeHost()
    const session = reads(new ReplicaSession(host, {} as Storage, null))
    await Promise.all([session.use(async () => 1), session.use(async () => 2), session.use(async () => 3)])
    await session.use(async () => 4)
    expect(ran).toEqual([0, 0, 0, 0])
  })

  it('runs a read that failed on the replica on the primary, and the rest of the request too', async () => {
    const { ran, host } = fakeHost(new Set([0]))
    const session = reads(new ReplicaSession(host, {} as Storage, null))
    expect(await session.use(async () => 'answer')).toBe('answer')
    await session.use(async () => 'next')
    expect(ran).toEqual(['p', 'p'])
  })
})

describe('replica health', () => {
  const source = (lsn: () => string | Error): LsnSource => ({
    query: async () => {
      const v = lsn()
      if (v instanceof Error) throw v
      return { rows: [{ lsn: v }] }
    },
  })

  it('parses and prints WAL positions', () => {
    expect(parseLsn('16/B374D848')).toBe(0x16b374d848n)
    expect(formatLsn(0x16b374d848n)).toBe('16/B374D848')
    expect(parseLsn('16/B374D848/1')).toBeNull()
    expect(parseLsn('')).toBeNull()
  })

  it('uses a replica once a poll found it, by its position; skips it while down or lagging, and takes it back', async () => {
    let primary = '0/100'
    let replica: string | Error = '0/100'
    const health = new ReplicaHealth(
      source(() => primary),
      [source(() => replica)],
      { pollMs: 10, maxLagMs: 60 },
    )
    onTestFinished(() => health.close())
    // Unknown until the first poll has answered: the primary.
    expect(health.choose(null)).toBeNull()
    await until(() => health.choose(null) === 0)
    expect(health.choose(0x100n)).toBe(0)
    expect(health.choose(0x101n)).toBeNull()
    expect(await health.probe(0x101n)).toBeNull()
    replica = '0/200'
    expect(await health.probe(0x180n)).toBe(0)
    // Down: skipped from the next poll on.
    replica = new Error('connection refused')
    await until(() => health.choose(null) === null)
    replica = '0/200'
    await until(() => health.choose(null) === 0)
    // The primary moves on and the replica does not: skipped once maxLagMs has passed.
    primary = '0/300'
    await until(() => health.choose(null) === null)
    replica = '0/300'
    await until(() => health.choose(null) === 0)
  })
})
