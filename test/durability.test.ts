/**
 * Durability: the SQLite-backed `npm start` server is killed with SIGKILL in the middle of a
 * write load. Every write it acknowledged (201) must be there, intact, when the file is opened
 * again; unacknowledged ones may or may not be.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'

export const durabilityStats = { acknowledged: 0, lost: 0, attempted: 0 }

const dir = mkdtempSync(join(tmpdir(), 'calendar-durability-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function startServer(file: string): Promise<{ child: ChildProcess; root: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/node-server/server.ts'], {
    cwd: process.cwd(),
    env: { ...process.env, PORT: '0', CALENDAR_DB: file, CALENDAR_API_TOKENS: 'writer:administrator' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 30_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const m = /listening on (http:\/\/\S+?)\/?\s/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve({ child, root: m[1] as string })
      }
    })
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)))
  })
}

describe('durability under SIGKILL', () => {
  it('loses no acknowledged write when the SQLite server is killed under write load', async () => {
    const file = join(dir, 'calendar.db')
    const { child, root } = await startServer(file)
    const acknowledged = new Map<number, { title: string; start: string }>()
    let stop = false
    let n = 0
    const writer = async () => {
      while (!stop) {
        const i = n++
        const title = `Durable ${i} ✓`
        const start = `2027-0${1 + (i % 9)}-1${i % 10} 1${i % 10}:30:00`
        durabilityStats.attempted++
        try {
          const res = await fetch(`${root}/events`, {
            method: 'POST',
            headers: { authorization: 'Bearer writer', 'content-type': 'application/json' },
            body: JSON.stringify({ title, start_date: start, end_date: start, description: 'x'.repeat(i % 500) }),
          })
          if (res.status === 201) acknowledged.set(((await res.json()) as { id: number }).id, { title, start })
        } catch {
          // The connection died with the server: not acknowledged, nothing is claimed.
        }
      }
    }
    const writers = Array.from({ length: 12 }, writer)
    // Kill once a fair number of writes went through, while others are in flight.
    while (acknowledged.size < 150) await new Promise((r) => setTimeout(r, 20))
    child.kill('SIGKILL')
    await new Promise((r) => child.once('exit', r))
    stop = true
    await Promise.all(writers)
    durabilityStats.acknowledged += acknowledged.size
    // Writes were still in flight when the process died (otherwise the kill proved nothing).
    expect(durabilityStats.attempted).toBeGreaterThan(acknowledged.size)

    const storage = createSqlStorage({ driver: await openSqliteFile(file) })
    const found = await storage.getPosts([...acknowledged.keys()])
    const byId = new Map(found.map((p) => [p.id, p]))
    const lost = [...acknowledged.keys()].filter((id) => !byId.has(id))
    durabilityStats.lost += lost.length
    console.log(`[durability] attempted ${durabilityStats.attempted}, acknowledged ${acknowledged.size}, lost ${lost.length}`)
    expect(lost).toEqual([])
    for (const [id, sent] of acknowledged) {
      const rec = byId.get(id)
      expect(rec?.type).toBe('event')
      expect(rec?.title).toBe(sent.title)
      expect(rec && rec.type === 'event' ? rec.startDate : null).toBe(sent.start)
    }
    // The database is consistent and writable after the crash.
    const after = await storage.transaction((tx) => tx.getPosts([...acknowledged.keys()].slice(0, 1)))
    expect(after).toHaveLength(1)
    await storage.close()
  }, 60_000)
})
