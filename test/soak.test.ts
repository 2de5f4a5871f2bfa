/**
 * The short soak CI runs (bench/soak.bench.ts runs the full 60 s): mixed loopback load on the
 * SQLite server with no error and a bounded memory footprint after warm-up.
 */
import { describe, expect, it } from 'vitest'
import { soak } from '../bench/soak.js'

describe('soak (short)', () => {
  it('serves a mixed read/write load without errors and with stable memory', async () => {
    const r = await soak({ seconds: 8, warmupSeconds: 4, workers: 6 })
    expect(r.requests).toBeGreaterThan(200)
    expect(r.errors).toBe(0)
    // Short runs are noisier than the 60 s bench: 10% plus a little room for one GC cycle.
    expect(r.rssEnd).toBeLessThanOrEqual(r.rssAfterWarmup * 1.1 + 8)
  }, 60_000)
})
