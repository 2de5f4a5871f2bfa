import Database from 'better-sqlite3'
import { MIGRATIONS } from '../../src/storage/sql/index.js'
import { renderDdl } from '../../src/storage/sql/migrations.js'
import { sqliteDialect } from '../../src/storage/sql/dialect.js'
const db = new Database(':memory:')
for (const m of MIGRATIONS) for (const s of m.statements) db.exec(renderDdl(sqliteDialect, s))
const q = (sql: string, ...a: unknown[]) => console.log(sql.slice(0, 90), '\n  ', (db.prepare('EXPLAIN QUERY PLAN ' + sql).all(...a) as any[]).map((r) => r.detail).join(' | '))
q(`SELECT slug FROM posts WHERE type = ? AND language = ? AND (slug = ? OR (slug >= ? AND slug < ?))`, 'event', 'en', 'a', 'a-', 'a.')
q(`SELECT slug FROM posts WHERE type = ? AND language = ? AND slug = ? UNION ALL SELECT slug FROM posts WHERE type = ? AND language = ? AND slug >= ? AND slug < ?`, 'event', 'en', 'a', 'event', 'en', 'a-', 'a.')
