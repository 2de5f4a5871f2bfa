/**
 * The plain fields' mapping derived from the field table (src/storage/wire-fields.ts): every
 * field whose row declares `wire` is accepted on create and update under its wire name with its
 * codec, shown in responses and their published schema, read from its CSV column and copied
 * from a TEC site. Nothing here names a field: a new row of the table is checked by these same
 * cases, and a row whose input parameter, representation or column is missing fails them.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { createMemoryStorage } from '../../../src/storage/memory.js'
import { CSV_COLUMNS, PLAIN_FIELDS, plainFromTec, type PlainField } from '../../../src/storage/wire-fields.js'
import { searchWords, wordsOf } from '../../../src/storage/search-fields.js'
import { tokensOf } from '../../../src/storage/sql/event-words.js'
import { Event, Organizer, Venue } from '../../../src/schemas/responses.js'
import { readCsv } from '../../../src/readers/csv.js'
import { makeApp } from '../../http/harness.js'

async function open() {
  const app = await makeApp(createMemoryStorage)
  onTestFinished(() => app.close())
  return app
}

/** A value of the codec other than what a create stores without it, so sending it shows. */
function other(p: PlainField): unknown {
  switch (p.codec) {
    case 'flag':
      return !p.absent
    case 'text':
      return 'Sold out'
    case 'choice':
      return p.choices.find((c) => c !== p.absent)
    case 'url':
      return 'https://example.com/live'
  }
}

const values = (fields: readonly PlainField[], pick: (p: PlainField) => unknown) => Object.fromEntries(fields.map((p) => [p.wire, pick(p)]))

const KINDS = [
  { kind: 'event', path: '/events', base: { title: 'Gig', start_date: '2027-03-01 20:00:00', end_date: '2027-03-01 22:00:00' } },
  { kind: 'venue', path: '/venues', base: { venue: 'Hall' } },
  { kind: 'organizer', path: '/organizers', base: { organizer: 'Crew' } },
] as const

describe('plain fields from the field table', () => {
  it('the table declares the plain fields this suite covers (it would pass vacuously without them)', () => {
    expect(PLAIN_FIELDS.event.map((p) => p.wire)).toEqual([
      'show_map',
      'show_map_link',
      'hide_from_listings',
      'sticky',
      'featured',
      'event_status_reason',
      'attendance_mode',
      'virtual_url',
    ])
    expect(PLAIN_FIELDS.venue.map((p) => [p.wire, p.absent])).toEqual([
      ['show_map', true],
      ['show_map_link', true],
    ])
  })

  for (const { kind, path, base } of KINDS) {
    it(`${kind}: a create stores each plain field sent, or its default; an update changes only those sent`, async () => {
      const app = await open()
      const fields = PLAIN_FIELDS[kind]
      const plain = await app.post(path, { ...base, status: 'publish' }, { as: 'administrator' })
      expect(plain.status, plain.text).toBe(201)
      expect(plain.body).toMatchObject(values(fields, (p) => p.absent))

      const set = await app.post(path, { ...base, status: 'publish', ...values(fields, other) }, { as: 'administrator' })
      expect(set.status, set.text).toBe(201)
      expect(set.body).toMatchObject(values(fields, other))
      expect((await app.get(`${path}/${set.body.id}`)).body).toMatchObject(values(fields, other))

      // Each field alone back to its default: the others keep their values.
      const expected = values(fields, other)
      for (const p of fields) {
        const res = await app.post(`${path}/${set.body.id}`, { [p.wire]: p.absent }, { as: 'administrator' })
        expect(res.status, res.text).toBe(200)
        expected[p.wire] = p.absent
        expect(res.body).toMatchObject(expected)
      }
      expect((await app.get(`${path}/${set.body.id}`)).body).toMatchObject(values(fields, (p) => p.absent))
    })
  }

  it('responses show the plain fields in the order of their published schema', async () => {
    const app = await open()
    for (const [{ kind, path, base }, schema] of [
      [KINDS[0], Event],
      [KINDS[1], Venue],
      [KINDS[2], Organizer],
    ] as const) {
      const wires = PLAIN_FIELDS[kind].map((p) => p.wire)
      const body = (await app.post(path, { ...base, status: 'publish' }, { as: 'administrator' })).body as Record<string, unknown>
      const inSchema = Object.keys(schema.entries).filter((k) => wires.includes(k))
      const inBody = Object.keys(body).filter((k) => wires.includes(k))
      expect(inSchema, kind).toEqual(wires)
      expect(inBody, kind).toEqual(wires)
    }
  })

  it('the CSV importer reads each declared column, by TEC header or by our column name', () => {
    expect(CSV_COLUMNS.length).toBeGreaterThan(0)
    const byHeader = readCsv(
      [
        'Event Name,Event Start Date,' + CSV_COLUMNS.map((c) => c.headers[0]).join(','),
        'Gig,2027-03-01,' + CSV_COLUMNS.map(() => 'yes').join(','),
      ].join('\n'),
    )
    const byName = readCsv(
      [
        'Event Name,Event Start Date,' + CSV_COLUMNS.map((c) => c.column).join(','),
        'Gig,2027-03-01,' + CSV_COLUMNS.map(() => 'no').join(','),
      ].join('\n'),
    )
    expect(byHeader[0]!.body).toMatchObject(Object.fromEntries(CSV_COLUMNS.map((c) => [c.wire, true])))
    expect(byName[0]!.body).toMatchObject(Object.fromEntries(CSV_COLUMNS.map((c) => [c.wire, false])))
    // An empty cell leaves the field to the create's default.
    const empty = readCsv(
      ['Event Name,Event Start Date,' + CSV_COLUMNS.map((c) => c.column).join(','), 'Gig,2027-03-01' + ','.repeat(CSV_COLUMNS.length)].join(
        '\n',
      ),
    )
    for (const c of CSV_COLUMNS) expect(empty[0]!.body).not.toHaveProperty(c.wire)
  })

  it("the TEC importer copies a site's plain event fields when their codec accepts the value", () => {
    const fields = PLAIN_FIELDS.event
    const body: Record<string, unknown> = {}
    plainFromTec('event', values(fields, other), body)
    expect(body).toEqual(values(fields, other))
    // Nothing is copied for a null; a flag only as a boolean.
    const none: Record<string, unknown> = {}
    plainFromTec(
      'event',
      values(fields, () => null),
      none,
    )
    expect(none).toEqual({})
    const strings: Record<string, unknown> = {}
    plainFromTec(
      'event',
      values(fields, () => '1'),
      strings,
    )
    for (const p of fields) expect(strings[p.wire], p.wire).toBe(p.codec === 'flag' ? undefined : '1')
  })
})

describe('search words', () => {
  it('one rule: lower-cased, split on any whitespace, each word once, in order of first occurrence', () => {
    expect(searchWords('  Jazz\tjazz\nBLUES\u00a0Night  ')).toEqual(['jazz', 'blues', 'night'])
    expect(searchWords(' \t ')).toEqual([])
    // The word index tokenises an (already lower-cased) search text by the same rule.
    expect(tokensOf('jazz  blues jazz')).toEqual(wordsOf('jazz  blues jazz'))
  })
})
