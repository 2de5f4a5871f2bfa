import Database from 'better-sqlite3'
import { createSqlStorage, openSqliteFile } from '/work/main/src/storage/sql/index.js'
import { newEvent } from '/work/main/src/testing/index.js'
const file = '/tmp/sqtest.db'
import { rmSync } from 'node:fs'
for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true })
const st = createSqlStorage({ driver: await openSqliteFile(file) })
await st.transaction(async (tx) => { for (let i = 0; i < 20000; i++) { const d = new Date(Date.UTC(2026, 2, 1) + Math.random() * 3 * 365 * 864e5).toISOString().slice(0, 19).replace('T', ' '); await tx.insertPost(newEvent({ slug: 'e' + i, startDate: d, endDate: d })) } })
const db = new Database(file)
const sql = `SELECT p.* FROM posts p WHERE p.type = 'event' AND p.language = ? AND p.status = ? AND p.hide_from_listings = FALSE AND p.start_date >= ? AND p.end_date <= ? ORDER BY p.start_date, p.id LIMIT ? OFFSET ?`
const stmt = db.prepare(sql)
const args = ['en', 'publish', '2026-11-21 00:00:00', '2028-11-22 23:59:59', 10, 0]
for (let k = 0; k < 5; k++) { const t = performance.now(); for (let i = 0; i < 100; i++) stmt.all(...args); console.log('page', (performance.now() - t) / 100) }
console.log(db.prepare('EXPLAIN QUERY PLAN ' + sql).all(...args))
const s2 = db.prepare(`SELECT p.* FROM posts p WHERE p.type = 'event' AND p.language = ? AND p.status = ? AND p.hide_from_listings = 0 AND p.start_date >= ? AND p.end_date <= ? ORDER BY p.start_date, p.id LIMIT ? OFFSET ?`)
{ const t = performance.now(); for (let i = 0; i < 100; i++) s2.all(...args); console.log('page hide=0', (performance.now() - t) / 100) }
console.log(db.prepare('EXPLAIN ' + sql).all(...args).map((r: any) => `${r.addr} ${r.opcode} ${r.p1} ${r.p2} ${r.p3} ${r.p4 ?? ''} ${r.p5}`).join('\n'))
