/**
 * Rule parsing, expansion and description. Expansion is compared with ical.js's independent
 * RFC 5545 iterator on floating times (what a rule decides is the days), and the DST corpus
 * checks that every occurrence keeps its wall-clock time in its zone.
 */
import ICAL from 'ical.js'
import { describe, expect, it } from 'vitest'
import { describeRule, expandRule, formatRule, parseRule, RuleError } from '../src/recurrence/index.js'
import { localToUtc, utcToLocal } from '../src/time/zone.js'
import { CORPUS } from './recurrence/corpus.js'

const far = { timezone: 'UTC', horizon: '2030-12-31 23:59:59', max: 5000 }

/** ical.js's occurrences for a floating start, as wall-clock strings. */
function reference(rule: string, start: string, limit = '2199-12-31 23:59:59'): string[] {
  const recur = ICAL.Recur.fromString(rule.replace(/UNTIL=(\d{8}T\d{6})Z/, 'UNTIL=$1'))
  const it = recur.iterator(ICAL.Time.fromDateTimeString(start.replace(' ', 'T')))
  const out: string[] = []
  for (let t = it.next(); t && out.length < 5000; t = it.next()) {
    const s = t.toString().replace('T', ' ')
    if (s > limit) break
    out.push(s)
  }
  return out
}

const floatingCases: Array<[string, string]> = [
  ['FREQ=DAILY;COUNT=10', '2026-01-30 09:00:00'],
  ['FREQ=DAILY;INTERVAL=5;UNTIL=20260601T000000', '2026-01-30 09:00:00'],
  ['FREQ=WEEKLY;BYDAY=TU,TH;COUNT=12', '2026-03-03 12:00:00'],
  ['FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,SU;WKST=SU;COUNT=20', '2026-03-02 12:00:00'],
  ['FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,SU;WKST=MO;COUNT=20', '2026-03-02 12:00:00'],
  ['FREQ=MONTHLY;BYDAY=-1FR;COUNT=12', '2026-01-30 18:00:00'],
  ['FREQ=MONTHLY;BYDAY=1MO,3MO;COUNT=12', '2026-01-05 18:00:00'],
  ['FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=14', '2026-01-31 18:00:00'],
  ['FREQ=MONTHLY;BYMONTHDAY=31;COUNT=7', '2026-01-31 18:00:00'],
  ['FREQ=MONTHLY;COUNT=7', '2026-01-31 18:00:00'],
  ['FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=12', '2026-01-30 09:00:00'],
  ['FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13;COUNT=5', '2026-02-13 09:00:00'],
  ['FREQ=MONTHLY;BYMONTH=1,6;BYMONTHDAY=10,20;COUNT=8', '2026-01-10 09:00:00'],
  ['FREQ=YEARLY;BYMONTH=11;BYDAY=4TH;COUNT=5', '2026-11-26 09:00:00'],
  ['FREQ=YEARLY;BYMONTH=3,10;BYDAY=-1SU;COUNT=6', '2026-03-29 02:30:00'],
  ['FREQ=YEARLY;BYMONTHDAY=1;BYMONTH=1,7;COUNT=6', '2026-01-01 09:00:00'],
  ['FREQ=YEARLY;INTERVAL=2;BYMONTH=6;BYDAY=SA;BYSETPOS=1;COUNT=4', '2026-06-06 09:00:00'],
  ['FREQ=DAILY;BYMONTH=2;COUNT=40', '2026-02-01 09:00:00'],
  ['FREQ=DAILY;BYMONTHDAY=1,15;UNTIL=20261231', '2026-01-01 09:00:00'],
]

describe('recurrence rules', () => {
  it.each(floatingCases)('%s expands as ical.js does', (rule, start) => {
    const ours = expandRule(parseRule(rule), start, far)
    expect(ours.length).toBeGreaterThan(0)
    expect(ours).toEqual(reference(rule, start))
  })

  it('stops open-ended rules at the horizon and at max', () => {
    const r = parseRule('RRULE:FREQ=WEEKLY;BYDAY=MO')
    const h = expandRule(r, '2026-01-05 10:00:00', { timezone: 'UTC', horizon: '2026-02-02 10:00:00', max: 100 })
    expect(h).toEqual(['2026-01-05 10:00:00', '2026-01-12 10:00:00', '2026-01-19 10:00:00', '2026-01-26 10:00:00', '2026-02-02 10:00:00'])
    expect(expandRule(r, '2026-01-05 10:00:00', { ...far, max: 3 })).toHaveLength(3)
  })

  it('starts at the first day the rule produces', () => {
    expect(expandRule(parseRule('FREQ=WEEKLY;BYDAY=TH;COUNT=2'), '2026-03-02 10:00:00', far)).toEqual([
      '2026-03-05 10:00:00',
      '2026-03-12 10:00:00',
    ])
  })

  // Two places where ical.js departs from RFC 5545 (so they stay out of the comparison above):
  // it moves a yearly Feb 29 to Mar 1, and reads a yearly BYDAY=20MO as weekly after the 20th.
  it('skips a yearly date that does not exist, as RFC 5545 says', () => {
    expect(expandRule(parseRule('FREQ=YEARLY;COUNT=3'), '2028-02-29 09:00:00', far)).toEqual([
      '2028-02-29 09:00:00',
      '2032-02-29 09:00:00',
      '2036-02-29 09:00:00',
    ])
  })

  it('takes a yearly BYDAY ordinal within the year', () => {
    expect(expandRule(parseRule('FREQ=YEARLY;BYDAY=20MO;COUNT=2'), '2026-01-01 09:00:00', far)).toEqual([
      '2026-05-18 09:00:00',
      '2027-05-17 09:00:00',
    ])
  })

  it('ends a rule that never matches', () => {
    expect(expandRule(parseRule('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30;COUNT=3'), '2026-01-01 10:00:00', far)).toEqual([])
  })

  it('writes rules canonically', () => {
    expect(formatRule(parseRule('rrule:count=12;byday=tu,th;freq=weekly'))).toBe('FREQ=WEEKLY;BYDAY=TU,TH;COUNT=12')
    expect(formatRule(parseRule('FREQ=MONTHLY;INTERVAL=1;BYDAY=-1FR;WKST=MO;UNTIL=20270101T000000Z'))).toBe(
      'FREQ=MONTHLY;BYDAY=-1FR;UNTIL=20270101T000000Z',
    )
  })

  it.each([
    ['FREQ=HOURLY', /HOURLY is not supported/],
    ['FREQ=DAILY;BYHOUR=9', /BYHOUR is not supported/],
    ['FREQ=YEARLY;BYWEEKNO=20', /BYWEEKNO is not supported/],
    ['FREQ=DAILY;BYYEARDAY=100', /BYYEARDAY is not supported/],
    ['BYDAY=MO', /FREQ is required/],
    ['FREQ=WEEKLY;BYDAY=-1FR', /ordinals/],
    ['FREQ=WEEKLY;BYMONTHDAY=3', /BYMONTHDAY cannot/],
    ['FREQ=DAILY;COUNT=2;UNTIL=20270101', /COUNT and UNTIL/],
    ['FREQ=DAILY;COUNT=0', /out of range/],
    ['FREQ=DAILY;INTERVAL=x', /whole number/],
    ['FREQ=MONTHLY;BYMONTHDAY=32', /out of range/],
    ['FREQ=DAILY;BYSETPOS=1', /BYSETPOS needs/],
    ['FREQ=DAILY;UNTIL=20270231', /not a date/],
    ['FREQ=DAILY;FOO=1', /not a rule part/],
    ['FREQ=DAILY;FREQ=WEEKLY', /twice/],
    ['', /empty/],
    ['FREQ=WEEKLY;BYDAY=XX', /weekday/],
  ])('refuses %s', (rule, reason) => {
    expect(() => parseRule(rule)).toThrow(RuleError)
    expect(() => parseRule(rule)).toThrow(reason)
  })

  it.each([
    ['FREQ=WEEKLY;BYDAY=TU,TH;COUNT=12', 'Every Tuesday and Thursday, 12 times'],
    ['FREQ=MONTHLY;BYDAY=-1FR', 'Monthly on the last Friday'],
    ['FREQ=DAILY', 'Daily'],
    ['FREQ=WEEKLY;INTERVAL=2;BYDAY=MO', 'Every 2 weeks on Monday'],
    ['FREQ=MONTHLY;BYMONTHDAY=1,15;UNTIL=20271231', 'Monthly on the 1st and the 15th, until December 31, 2027'],
    ['FREQ=YEARLY;BYMONTH=3', 'Yearly in March'],
    ['FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1', 'Monthly on the last of Monday, Tuesday, Wednesday, Thursday and Friday'],
    ['FREQ=DAILY;COUNT=1', 'Daily, once'],
  ])('describes %s', (rule, text) => {
    expect(describeRule(parseRule(rule))).toBe(text)
  })

  it('keeps the wall-clock time across both DST changes in every corpus zone', () => {
    let checked = 0
    for (const c of CORPUS) {
      const starts = expandRule(parseRule(c.rule), c.start, { timezone: c.tz, horizon: '2030-01-01 00:00:00', max: 1000 })
      const time = c.start.slice(11)
      const offsets = new Set<string>()
      for (const s of starts) {
        const utc = localToUtc(s, c.tz)
        // A time that does not exist that day (02:30 on a spring-forward day) moves forward.
        if (utcToLocal(utc, c.tz) === s) expect(s.slice(11)).toBe(time)
        offsets.add(String((Date.parse(`${s.replace(' ', 'T')}Z`) - Date.parse(`${utc.replace(' ', 'T')}Z`)) / 60000))
        checked++
      }
      expect(offsets.size, `${c.rule} in ${c.tz} crosses a DST change`).toBeGreaterThan(1)
    }
    expect(checked).toBeGreaterThan(500)
  })
})
