import { describe, it, expect } from 'vitest'
import {
  addDays,
  addMonths,
  civilFromDays,
  dateDetails,
  dayEnd,
  dayStart,
  daysFromCivil,
  epochSecondsToParts,
  formatWallClock,
  parseWallClock,
  partsToEpochSeconds,
  toUtcString,
} from '../src/time/format.js'
import { canonicalTimezone, isValidTimezone, isoOffset, localToUtc, offsetMinutes, timezoneAbbr, utcToLocal } from '../src/time/zone.js'
import { parseDateInput, parseDateToUtc } from '../src/time/parse.js'

const NY = 'America/New_York'
const BERLIN = 'Europe/Berlin'
const LORD_HOWE = 'Australia/Lord_Howe'
const KOLKATA = 'Asia/Kolkata'

/** Saturday 2026-11-21, 17:54 in New York (EST). */
const NOW = new Date('2026-11-21T22:54:00Z')

const epochOf = (wall: string): number => partsToEpochSeconds(parseWallClock(wall)!)
const wallOf = (epochSeconds: number): string => formatWallClock(epochSecondsToParts(epochSeconds))

describe('format: wall-clock strings', () => {
  it('formats zero-padded', () => {
    expect(formatWallClock({ year: 2026, month: 3, day: 8, hour: 2, minute: 5, second: 9 })).toBe('2026-03-08 02:05:09')
    expect(formatWallClock({ year: 5, month: 1, day: 1, hour: 0, minute: 0, second: 0 })).toBe('0005-01-01 00:00:00')
    expect(formatWallClock({ year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59 })).toBe('9999-12-31 23:59:59')
  })

  it('parses strictly', () => {
    expect(parseWallClock('2026-11-26 19:00:05')).toEqual({
      year: 2026,
      month: 11,
      day: 26,
      hour: 19,
      minute: 0,
      second: 5,
    })
    expect(parseWallClock('2028-02-29 00:00:00')).not.toBeNull()
    for (const bad of [
      '2026-02-29 00:00:00',
      '2026-04-31 00:00:00',
      '2026-13-01 00:00:00',
      '2026-00-01 00:00:00',
      '2026-01-00 00:00:00',
      '2026-11-26 24:00:00',
      '2026-11-26 23:60:00',
      '2026-11-26 23:59:60',
      '2026-11-26T19:00:00',
      '2026-11-26 19:00',
      '2026-1-26 19:00:00',
      ' 2026-11-26 19:00:00',
      '2026-11-26 19:00:00 ',
      '',
    ]) {
      expect(parseWallClock(bad), bad).toBeNull()
    }
  })

  it('gives the start_date_details wire shape', () => {
    expect(dateDetails('2026-03-08 02:05:09')).toEqual({
      year: '2026',
      month: '03',
      day: '08',
      hour: '02',
      minutes: '05',
      seconds: '09',
    })
    expect(() => dateDetails('2026-02-30 00:00:00')).toThrow(RangeError)
  })

  it('renders an instant in UTC, dropping milliseconds', () => {
    expect(toUtcString(new Date('2026-11-26T19:00:05.999Z'))).toBe('2026-11-26 19:00:05')
    expect(toUtcString(new Date(-1))).toBe('1969-12-31 23:59:59')
    expect(toUtcString(new Date('0050-06-01T00:00:00Z'))).toBe('0050-06-01 00:00:00')
    expect(() => toUtcString(new Date(Number.NaN))).toThrow(RangeError)
  })

  it('converts civil dates exactly (checked against Date for 1600..2400)', () => {
    const start = daysFromCivil(1600, 1, 1)
    expect(start * 86400000).toBe(Date.UTC(1600, 0, 1))
    for (let days = start; days <= daysFromCivil(2400, 12, 31); days += 7) {
      const d = new Date(days * 86400000)
      expect(civilFromDays(days)).toEqual({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() })
    }
  })

  it('adds calendar days, keeping the time of day', () => {
    expect(addDays('2026-11-26 19:00:00', 1)).toBe('2026-11-27 19:00:00')
    expect(addDays('2026-12-31 08:00:00', 1)).toBe('2027-01-01 08:00:00')
    expect(addDays('2028-02-28 00:00:00', 1)).toBe('2028-02-29 00:00:00')
    expect(addDays('2026-03-01 10:00:00', -1)).toBe('2026-02-28 10:00:00')
    expect(addDays('2026-03-07 02:30:00', 1)).toBe('2026-03-08 02:30:00')
    expect(addDays('2026-01-01 00:00:00', 365)).toBe('2027-01-01 00:00:00')
    expect(() => addDays('2026-01-01 00:00:00', 1.5)).toThrow(RangeError)
    expect(() => addDays('not a date', 1)).toThrow(RangeError)
  })

  it('adds months, clamping the day to the month end', () => {
    expect(addMonths('2026-01-31 10:00:00', 1)).toBe('2026-02-28 10:00:00')
    expect(addMonths('2028-01-31 10:00:00', 1)).toBe('2028-02-29 10:00:00')
    expect(addMonths('2026-03-31 10:00:00', -1)).toBe('2026-02-28 10:00:00')
    expect(addMonths('2026-05-31 10:00:00', 1)).toBe('2026-06-30 10:00:00')
    expect(addMonths('2026-11-15 10:00:00', 2)).toBe('2027-01-15 10:00:00')
    expect(addMonths('2026-01-15 10:00:00', -13)).toBe('2024-12-15 10:00:00')
    expect(addMonths('2028-02-29 10:00:00', 12)).toBe('2029-02-28 10:00:00')
    expect(addMonths('2026-01-31 10:00:00', 0)).toBe('2026-01-31 10:00:00')
  })

  it('gives the bounds of a day', () => {
    expect(dayStart('2026-11-26 19:04:05')).toBe('2026-11-26 00:00:00')
    expect(dayEnd('2026-11-26 19:04:05')).toBe('2026-11-26 23:59:59')
  })
})

describe('zone: names', () => {
  it('accepts IANA names, UTC and WordPress offsets', () => {
    for (const tz of [
      NY,
      BERLIN,
      KOLKATA,
      'Asia/Calcutta',
      LORD_HOWE,
      'UTC',
      'Etc/UTC',
      'US/Eastern',
      'america/new_york',
      'UTC+5',
      'UTC-3',
      'UTC+5:30',
      'UTC-9:30',
      'UTC+05:45',
      'UTC+0',
      'UTC+5.5',
      'UTC+5.75',
      'UTC-14',
      'UTC+14',
      'utc+5',
    ]) {
      expect(isValidTimezone(tz), tz).toBe(true)
    }
  })

  it('rejects everything else', () => {
    for (const tz of [
      'Mars/Olympus',
      'EST5EDT-garbage',
      '',
      ' UTC',
      '+5',
      '+05:00',
      '-03',
      'GMT+5',
      'UTC+15',
      'UTC-14:30',
      'UTC+5:60',
      'UTC+5.33',
      'UTC+5:3',
      'UTC5',
      'utc+5x',
      'America/New_York ',
      '../etc/passwd',
    ]) {
      expect(isValidTimezone(tz), tz).toBe(false)
    }
    expect(isValidTimezone(42 as unknown as string)).toBe(false)
  })

  it('spells names canonically', () => {
    expect(canonicalTimezone('america/new_york')).toBe(NY)
    expect(canonicalTimezone('EUROPE/BERLIN')).toBe(BERLIN)
    expect(canonicalTimezone(NY)).toBe(NY)
    expect(canonicalTimezone('UTC')).toBe('UTC')
    expect(canonicalTimezone('utc')).toBe('UTC')
    expect(canonicalTimezone('Etc/UTC')).toBe('UTC')
    expect(canonicalTimezone('GMT')).toBe('UTC')
    expect(canonicalTimezone('UTC+5')).toBe('UTC+5')
    expect(canonicalTimezone('utc+05')).toBe('UTC+5')
    expect(canonicalTimezone('UTC+05:30')).toBe('UTC+5:30')
    expect(canonicalTimezone('UTC+5.5')).toBe('UTC+5:30')
    expect(canonicalTimezone('UTC+5.75')).toBe('UTC+5:45')
    expect(canonicalTimezone('UTC-9:30')).toBe('UTC-9:30')
    expect(canonicalTimezone('UTC-09:00')).toBe('UTC-9')
    expect(canonicalTimezone('UTC+0')).toBe('UTC+0')
    expect(canonicalTimezone('UTC-0')).toBe('UTC+0')
    expect(() => canonicalTimezone('Mars/Olympus')).toThrow(RangeError)
  })

  it('keeps a deliberately spelled alias instead of the runtime’s choice', () => {
    expect(canonicalTimezone(KOLKATA)).toBe(KOLKATA)
    expect(canonicalTimezone('Asia/Calcutta')).toBe('Asia/Calcutta')
    expect(canonicalTimezone('US/Eastern')).toBe('US/Eastern')
    // Case cannot be repaired without Intl's help; it names one of the two spellings.
    expect(['Asia/Kolkata', 'Asia/Calcutta']).toContain(canonicalTimezone('asia/kolkata'))
  })
})

describe('zone: offsets and conversions', () => {
  it('gives offsets in minutes', () => {
    expect(offsetMinutes(NY, new Date('2026-01-15T12:00:00Z'))).toBe(-300)
    expect(offsetMinutes(NY, new Date('2026-07-15T12:00:00Z'))).toBe(-240)
    expect(offsetMinutes(BERLIN, new Date('2026-01-15T12:00:00Z'))).toBe(60)
    expect(offsetMinutes(BERLIN, new Date('2026-07-15T12:00:00Z'))).toBe(120)
    expect(offsetMinutes(KOLKATA, new Date('2026-07-15T12:00:00Z'))).toBe(330)
    expect(offsetMinutes('Asia/Kathmandu', new Date('2026-07-15T12:00:00Z'))).toBe(345)
    expect(offsetMinutes(LORD_HOWE, new Date('2026-01-15T12:00:00Z'))).toBe(660)
    expect(offsetMinutes(LORD_HOWE, new Date('2026-07-15T12:00:00Z'))).toBe(630)
    expect(offsetMinutes('UTC', new Date('2026-07-15T12:00:00Z'))).toBe(0)
    expect(offsetMinutes('UTC+5.5', new Date('2026-07-15T12:00:00Z'))).toBe(330)
    expect(offsetMinutes('UTC-9:30', new Date('2026-07-15T12:00:00Z'))).toBe(-570)
    // The instant changes offset exactly at 2026-03-08 07:00 UTC.
    expect(offsetMinutes(NY, new Date('2026-03-08T06:59:59.999Z'))).toBe(-300)
    expect(offsetMinutes(NY, new Date('2026-03-08T07:00:00Z'))).toBe(-240)
    expect(() => offsetMinutes('Mars/Olympus', NOW)).toThrow(RangeError)
  })

  it('converts ordinary times both ways', () => {
    expect(localToUtc('2026-11-26 19:00:00', NY)).toBe('2026-11-27 00:00:00')
    expect(utcToLocal('2026-11-27 00:00:00', NY)).toBe('2026-11-26 19:00:00')
    expect(localToUtc('2026-07-04 12:00:00', NY)).toBe('2026-07-04 16:00:00')
    expect(localToUtc('2026-11-26 19:00:00', 'UTC')).toBe('2026-11-26 19:00:00')
    expect(localToUtc('2026-01-01 00:00:00', 'UTC+5:30')).toBe('2025-12-31 18:30:00')
    expect(utcToLocal('2025-12-31 18:30:00', 'UTC+5:30')).toBe('2026-01-01 00:00:00')
    expect(localToUtc('2026-01-01 00:00:00', 'UTC-9:30')).toBe('2026-01-01 09:30:00')
    expect(localToUtc('2026-01-01 00:00:00', KOLKATA)).toBe('2025-12-31 18:30:00')
    expect(localToUtc('2026-01-01 00:00:00', 'Asia/Kathmandu')).toBe('2025-12-31 18:15:00')
    expect(() => localToUtc('2026-02-30 00:00:00', NY)).toThrow(RangeError)
    expect(() => utcToLocal('2026-01-01 00:00:00', 'Mars/Olympus')).toThrow(RangeError)
  })

  it('moves New York spring-forward gap times forward by the gap', () => {
    expect(localToUtc('2026-03-08 01:59:59', NY)).toBe('2026-03-08 06:59:59')
    expect(localToUtc('2026-03-08 02:00:00', NY)).toBe('2026-03-08 07:00:00')
    expect(localToUtc('2026-03-08 02:30:00', NY)).toBe('2026-03-08 07:30:00')
    expect(localToUtc('2026-03-08 02:59:59', NY)).toBe('2026-03-08 07:59:59')
    expect(localToUtc('2026-03-08 03:00:00', NY)).toBe('2026-03-08 07:00:00')
    expect(utcToLocal('2026-03-08 07:30:00', NY)).toBe('2026-03-08 03:30:00')
  })

  it('takes the first of New York fall-back repeated times', () => {
    expect(localToUtc('2026-11-01 00:59:59', NY)).toBe('2026-11-01 04:59:59')
    expect(localToUtc('2026-11-01 01:00:00', NY)).toBe('2026-11-01 05:00:00')
    expect(localToUtc('2026-11-01 01:30:00', NY)).toBe('2026-11-01 05:30:00')
    expect(localToUtc('2026-11-01 01:59:59', NY)).toBe('2026-11-01 05:59:59')
    expect(localToUtc('2026-11-01 02:00:00', NY)).toBe('2026-11-01 07:00:00')
    // Both instants read back as the same wall clock.
    expect(utcToLocal('2026-11-01 05:30:00', NY)).toBe('2026-11-01 01:30:00')
    expect(utcToLocal('2026-11-01 06:30:00', NY)).toBe('2026-11-01 01:30:00')
  })

  it('handles Berlin gap and overlap', () => {
    expect(localToUtc('2026-03-29 01:59:59', BERLIN)).toBe('2026-03-29 00:59:59')
    expect(localToUtc('2026-03-29 02:30:00', BERLIN)).toBe('2026-03-29 01:30:00')
    expect(utcToLocal('2026-03-29 01:30:00', BERLIN)).toBe('2026-03-29 03:30:00')
    expect(localToUtc('2026-03-29 03:00:00', BERLIN)).toBe('2026-03-29 01:00:00')
    expect(localToUtc('2026-10-25 02:30:00', BERLIN)).toBe('2026-10-25 00:30:00')
    expect(utcToLocal('2026-10-25 01:30:00', BERLIN)).toBe('2026-10-25 02:30:00')
    expect(localToUtc('2026-10-25 03:00:00', BERLIN)).toBe('2026-10-25 02:00:00')
  })

  it('handles Lord Howe half-hour DST', () => {
    // 2026-10-04 02:00 (+10:30) jumps to 02:30 (+11).
    expect(localToUtc('2026-10-04 01:59:00', LORD_HOWE)).toBe('2026-10-03 15:29:00')
    expect(localToUtc('2026-10-04 02:15:00', LORD_HOWE)).toBe('2026-10-03 15:45:00')
    expect(utcToLocal('2026-10-03 15:45:00', LORD_HOWE)).toBe('2026-10-04 02:45:00')
    // 2026-04-05 02:00 (+11) falls back to 01:30 (+10:30).
    expect(localToUtc('2026-04-05 01:45:00', LORD_HOWE)).toBe('2026-04-04 14:45:00')
    expect(utcToLocal('2026-04-04 15:15:00', LORD_HOWE)).toBe('2026-04-05 01:45:00')
    expect(localToUtc('2026-04-05 02:00:00', LORD_HOWE)).toBe('2026-04-04 15:30:00')
  })

  // Independent oracle: the published rules, as UTC instants where DST starts and ends.
  const rules = [
    { tz: NY, std: -300, dst: -240, starts: '2026-03-08 07:00:00', ends: '2026-11-01 06:00:00' },
    { tz: BERLIN, std: 60, dst: 120, starts: '2026-03-29 01:00:00', ends: '2026-10-25 01:00:00' },
    // Southern hemisphere: DST ends in April and starts again in October.
    { tz: LORD_HOWE, std: 630, dst: 660, starts: '2026-10-03 15:30:00', ends: '2026-04-04 15:00:00' },
  ]

  for (const { tz, std, dst, starts, ends } of rules) {
    it(`is exact for every half hour of 2026 in ${tz}`, () => {
      const [from, to] = [epochOf(starts), epochOf(ends)]
      const offsetAt = (epoch: number): number =>
        (from < to ? epoch >= from && epoch < to : epoch >= from || epoch < to) ? dst * 60 : std * 60
      const expectedUtc = (local: number): number => {
        const valid = [dst, std].map((o) => local - o * 60).filter((epoch) => offsetAt(epoch) === local - epoch)
        return valid.length ? Math.min(...valid) : local - std * 60
      }
      const first = epochOf('2026-01-01 00:00:00')
      const last = epochOf('2027-01-01 00:00:00')
      let gapSteps = 0
      let overlapSteps = 0
      for (let t = first; t < last; t += 1800) {
        // Instants: utcToLocal and offsetMinutes against the rules.
        const utc = wallOf(t)
        const local = utcToLocal(utc, tz)
        expect(local, utc).toBe(wallOf(t + offsetAt(t)))
        expect(offsetMinutes(tz, new Date(t * 1000))).toBe(offsetAt(t) / 60)
        const back = localToUtc(local, tz)
        if (back !== utc) {
          overlapSteps++
          expect(epochOf(back), utc).toBe(t - (dst - std) * 60)
        }
        // Wall clocks: localToUtc against the rules; only gap times fail to read back.
        const wall = wallOf(t)
        const resolved = localToUtc(wall, tz)
        expect(resolved, wall).toBe(wallOf(expectedUtc(t)))
        if (utcToLocal(resolved, tz) !== wall) gapSteps++
      }
      // Half-hour steps: each gap and overlap lasts (dst - std) minutes.
      expect(gapSteps).toBe((dst - std) / 30)
      expect(overlapSteps).toBe((dst - std) / 30)
    })
  }
})

describe('zone: abbreviations and ISO offsets', () => {
  const winter = '2026-01-15 12:00:00'
  const summer = '2026-07-15 12:00:00'

  it('names zones the way PHP does', () => {
    const cases: Array<[string, string, string]> = [
      [NY, 'EST', 'EDT'],
      ['America/Los_Angeles', 'PST', 'PDT'],
      ['America/Adak', 'HST', 'HDT'],
      ['UTC', 'UTC', 'UTC'],
      ['Etc/UTC', 'UTC', 'UTC'],
      [BERLIN, 'CET', 'CEST'],
      ['Europe/London', 'GMT', 'BST'],
      ['Europe/Dublin', 'GMT', 'IST'],
      ['Asia/Tokyo', 'JST', 'JST'],
      [KOLKATA, 'IST', 'IST'],
      ['Asia/Calcutta', 'IST', 'IST'],
      ['Australia/Sydney', 'AEDT', 'AEST'],
      [LORD_HOWE, '+11', '+1030'],
      ['America/Sao_Paulo', '-03', '-03'],
      ['Asia/Kathmandu', '+0545', '+0545'],
      ['Asia/Dubai', '+04', '+04'],
      ['Etc/GMT+5', '-05', '-05'],
      ['America/St_Johns', 'NST', 'NDT'],
      ['UTC+5:30', 'UTC+5:30', 'UTC+5:30'],
      ['UTC+5.5', 'UTC+5:30', 'UTC+5:30'],
      ['UTC-3', 'UTC-3', 'UTC-3'],
    ]
    for (const [tz, w, s] of cases) {
      expect(timezoneAbbr(tz, winter), `${tz} winter`).toBe(w)
      expect(timezoneAbbr(tz, summer), `${tz} summer`).toBe(s)
    }
  })

  it('switches abbreviation at the transition instant', () => {
    expect(timezoneAbbr(NY, '2026-03-08 06:59:59')).toBe('EST')
    expect(timezoneAbbr(NY, '2026-03-08 07:00:00')).toBe('EDT')
    expect(timezoneAbbr(BERLIN, '2026-10-25 00:59:59')).toBe('CEST')
    expect(timezoneAbbr(BERLIN, '2026-10-25 01:00:00')).toBe('CET')
  })

  it('falls back to numeric or LMT names where tzdata has no letters', () => {
    expect(timezoneAbbr('Europe/Moscow', '2012-07-01 00:00:00')).toBe('+04')
    expect(timezoneAbbr(NY, '1850-01-01 00:00:00')).toBe('LMT')
  })

  it('gives ISO-8601 offsets', () => {
    expect(isoOffset('UTC', winter)).toBe('+00:00')
    expect(isoOffset(NY, '2026-11-27 00:00:00')).toBe('-05:00')
    expect(isoOffset(NY, summer)).toBe('-04:00')
    expect(isoOffset(KOLKATA, summer)).toBe('+05:30')
    expect(isoOffset('Asia/Kathmandu', summer)).toBe('+05:45')
    expect(isoOffset(LORD_HOWE, summer)).toBe('+10:30')
    expect(isoOffset('UTC-9:30', summer)).toBe('-09:30')
    expect(isoOffset('UTC+0', summer)).toBe('+00:00')
    expect(isoOffset(NY, '1850-01-01 00:00:00')).toBe('-04:56')
  })
})

describe('parse: absolute forms', () => {
  const cases: Array<[unknown, string]> = [
    ['2026-11-26 19:00:00', '2026-11-26 19:00:00'],
    ['2026-11-26 19:00', '2026-11-26 19:00:00'],
    ['2026-11-26', '2026-11-26 00:00:00'],
    ['2026-11-26T19:00', '2026-11-26 19:00:00'],
    ['2026-11-26T19:00:05', '2026-11-26 19:00:05'],
    ['2026-11-26T19:00:05.123', '2026-11-26 19:00:05'],
    ['2026-11-26T19:00:00Z', '2026-11-26 14:00:00'],
    ['2026-11-26T19:00:00.5z', '2026-11-26 14:00:00'],
    ['2026-11-26T19:00:00+02:00', '2026-11-26 12:00:00'],
    ['2026-11-26T19:00:00+0200', '2026-11-26 12:00:00'],
    ['2026-11-26T19:00:00-05:00', '2026-11-26 19:00:00'],
    ['2026-11-26T01:00:00+05:30', '2026-11-25 14:30:00'],
    ['2026-11-26 19:00:00 UTC', '2026-11-26 14:00:00'],
    ['2026-11-26 4pm', '2026-11-26 16:00:00'],
    ['2026-11-26 4:30pm', '2026-11-26 16:30:00'],
    ['2026-11-26 4:30 PM', '2026-11-26 16:30:00'],
    ['2026-11-26 12am', '2026-11-26 00:00:00'],
    ['2026-11-26 12pm', '2026-11-26 12:00:00'],
    ['2026/11/26', '2026-11-26 00:00:00'],
    ['11/26/2026', '2026-11-26 00:00:00'],
    ['11/26/2026 7:15pm', '2026-11-26 19:15:00'],
    ['26 November 2026', '2026-11-26 00:00:00'],
    ['26th Nov 2026 10am', '2026-11-26 10:00:00'],
    ['November 26, 2026 7pm', '2026-11-26 19:00:00'],
    ['Nov 26 2026 19:00', '2026-11-26 19:00:00'],
    ['Thursday, November 26, 2026', '2026-11-26 00:00:00'],
    ['November 2026', '2026-11-01 00:00:00'],
    ['Dec 25', '2026-12-25 00:00:00'],
    ['20261126', '2026-11-26 00:00:00'],
    ['  2026-11-26 19:00  ', '2026-11-26 19:00:00'],
  ]
  for (const [input, expected] of cases) {
    it(`reads ${JSON.stringify(input)}`, () => {
      expect(parseDateInput(input, NY, NOW)).toBe(expected)
    })
  }

  it('renders instants in the target zone', () => {
    expect(parseDateInput('2026-11-26T19:00:00Z', KOLKATA, NOW)).toBe('2026-11-27 00:30:00')
    expect(parseDateInput('2026-11-26T19:00:00Z', 'UTC', NOW)).toBe('2026-11-26 19:00:00')
    expect(parseDateInput('2026-11-26T19:00:00Z', 'UTC-9:30', NOW)).toBe('2026-11-26 09:30:00')
    expect(parseDateInput('2026-11-26 19:00', KOLKATA, NOW)).toBe('2026-11-26 19:00:00')
  })
})

describe('parse: timestamps', () => {
  const t = Date.parse('2026-11-26T23:00:00Z') / 1000

  it('reads numbers and digit strings as Unix seconds', () => {
    expect(parseDateInput(t, NY, NOW)).toBe('2026-11-26 18:00:00')
    expect(parseDateInput(t + 0.9, NY, NOW)).toBe('2026-11-26 18:00:00')
    expect(parseDateInput(String(t), NY, NOW)).toBe('2026-11-26 18:00:00')
    expect(parseDateInput(`@${t}`, 'UTC', NOW)).toBe('2026-11-26 23:00:00')
    expect(parseDateInput(0, 'UTC', NOW)).toBe('1970-01-01 00:00:00')
    expect(parseDateInput('-1', NY, NOW)).toBe('1969-12-31 18:59:59')
    expect(parseDateInput(t, KOLKATA, NOW)).toBe('2026-11-27 04:30:00')
  })

  it('reads a Date as the instant it is', () => {
    expect(parseDateInput(new Date('2026-11-26T23:00:00Z'), NY, NOW)).toBe('2026-11-26 18:00:00')
    expect(parseDateInput(new Date(Number.NaN), NY, NOW)).toBeNull()
  })
})

describe('parse: relative forms (now = Saturday 2026-11-21 17:54 New York)', () => {
  const cases: Array<[string, string]> = [
    ['now', '2026-11-21 17:54:00'],
    ['today', '2026-11-21 00:00:00'],
    ['midnight', '2026-11-21 00:00:00'],
    ['noon', '2026-11-21 12:00:00'],
    ['tomorrow', '2026-11-22 00:00:00'],
    ['yesterday', '2026-11-20 00:00:00'],
    ['tomorrow 9am', '2026-11-22 09:00:00'],
    ['tomorrow at 9am', '2026-11-22 09:00:00'],
    ['yesterday 23:59', '2026-11-20 23:59:00'],
    ['today 18:30', '2026-11-21 18:30:00'],
    ['tomorrow noon', '2026-11-22 12:00:00'],
    ['tomorrow midnight', '2026-11-22 00:00:00'],
    ['+1 day', '2026-11-22 17:54:00'],
    ['+1day', '2026-11-22 17:54:00'],
    ['-2 weeks', '2026-11-07 17:54:00'],
    ['+3 hours', '2026-11-21 20:54:00'],
    ['+90 minutes', '2026-11-21 19:24:00'],
    ['30 seconds', '2026-11-21 17:54:30'],
    ['1 month ago', '2026-10-21 17:54:00'],
    ['2 days 3 hours ago', '2026-11-19 14:54:00'],
    ['+1 week 2 days', '2026-11-30 17:54:00'],
    ['+1 fortnight', '2026-12-05 17:54:00'],
    ['+1 year', '2027-11-21 17:54:00'],
    ['next monday', '2026-11-23 00:00:00'],
    ['next monday 4pm', '2026-11-23 16:00:00'],
    ['last friday', '2026-11-20 00:00:00'],
    ['monday', '2026-11-23 00:00:00'],
    ['mon', '2026-11-23 00:00:00'],
    ['saturday', '2026-11-21 00:00:00'],
    ['this saturday', '2026-11-21 00:00:00'],
    ['next saturday', '2026-11-28 00:00:00'],
    ['last saturday', '2026-11-14 00:00:00'],
    ['friday 7pm', '2026-11-27 19:00:00'],
    // PHP: that ISO week's Monday, time of day kept.
    ['next week', '2026-11-23 17:54:00'],
    ['last week', '2026-11-09 17:54:00'],
    ['this week', '2026-11-16 17:54:00'],
    ['monday next week', '2026-11-23 00:00:00'],
    ['sunday last week', '2026-11-15 00:00:00'],
    ['first monday of january 2027', '2027-01-04 00:00:00'],
    ['last friday of next month', '2026-12-25 00:00:00'],
    ['third thursday of this month', '2026-11-19 00:00:00'],
    ['second monday', '2026-11-30 00:00:00'],
    ['+2 weekdays', '2026-11-24 17:54:00'],
    ['-3 weekdays', '2026-11-18 17:54:00'],
    ['+0 weekdays', '2026-11-23 17:54:00'],
    ['2026-11-30 09:00 +5 weekdays', '2026-12-07 09:00:00'],
    ['26.11.2026 19:00', '2026-11-26 19:00:00'],
    ['Thu, 26 Nov 2026 19:00:00 +0000', '2026-11-26 14:00:00'],
    ['next month', '2026-12-21 17:54:00'],
    ['last year', '2025-11-21 17:54:00'],
    ['this month', '2026-11-21 17:54:00'],
    ['first day of next month', '2026-12-01 17:54:00'],
    ['last day of this month', '2026-11-30 17:54:00'],
    ['last day of next month', '2026-12-31 17:54:00'],
    ['first day of last month', '2026-10-01 17:54:00'],
    ['midnight first day of next month', '2026-12-01 00:00:00'],
    ['first day of january 2027', '2027-01-01 00:00:00'],
    ['last day of february 2028', '2028-02-29 00:00:00'],
    ['4pm', '2026-11-21 16:00:00'],
    ['4 pm', '2026-11-21 16:00:00'],
    ['4:30pm', '2026-11-21 16:30:00'],
    ['16:00', '2026-11-21 16:00:00'],
    ['16:00:30', '2026-11-21 16:00:30'],
    ['2026-11-26 +1 day', '2026-11-27 00:00:00'],
    ['2026-11-26 19:00 -2 hours', '2026-11-26 17:00:00'],
    ['2026-11-26 next monday', '2026-11-30 00:00:00'],
    ['  TOMORROW   9AM  ', '2026-11-22 09:00:00'],
    ['Next Monday 4:30 P.M.', '2026-11-23 16:30:00'],
  ]
  for (const [input, expected] of cases) {
    it(`reads ${JSON.stringify(input)}`, () => {
      expect(parseDateInput(input, NY, NOW)).toBe(expected)
    })
  }

  it('treats a bare weekday as today when it is today, like PHP', () => {
    const monday = new Date('2026-11-23T15:00:00Z')
    expect(parseDateInput('monday', NY, monday)).toBe('2026-11-23 00:00:00')
    expect(parseDateInput('next monday', NY, monday)).toBe('2026-11-30 00:00:00')
    expect(parseDateInput('last monday', NY, monday)).toBe('2026-11-16 00:00:00')
  })

  it('clamps month arithmetic to the month end', () => {
    const endOfJanuary = new Date('2026-01-31T17:00:00Z')
    expect(parseDateInput('+1 month', NY, endOfJanuary)).toBe('2026-02-28 12:00:00')
    expect(parseDateInput('next month', NY, endOfJanuary)).toBe('2026-02-28 12:00:00')
    expect(parseDateInput('last day of next month', NY, endOfJanuary)).toBe('2026-02-28 12:00:00')
    expect(parseDateInput('-1 month', NY, new Date('2026-03-31T16:00:00Z'))).toBe('2026-02-28 12:00:00')
  })

  it('uses "now" in the given zone, not the machine’s', () => {
    // 22:54 UTC is already Sunday in Kolkata and Tokyo.
    expect(parseDateInput('today', KOLKATA, NOW)).toBe('2026-11-22 00:00:00')
    expect(parseDateInput('now', KOLKATA, NOW)).toBe('2026-11-22 04:24:00')
    expect(parseDateInput('monday', 'Asia/Tokyo', NOW)).toBe('2026-11-23 00:00:00')
    expect(parseDateInput('now', 'UTC+5:30', NOW)).toBe('2026-11-22 04:24:00')
    expect(parseDateInput('now', LORD_HOWE, NOW)).toBe('2026-11-22 09:54:00')
  })

  it('adds hours to the wall clock like days, across DST too, as PHP does', () => {
    const beforeFallBack = new Date('2026-10-24T10:00:00Z') // 12:00 CEST
    expect(parseDateInput('+1 day', BERLIN, beforeFallBack)).toBe('2026-10-25 12:00:00')
    expect(parseDateInput('+24 hours', BERLIN, beforeFallBack)).toBe('2026-10-25 12:00:00')
    const beforeSpringForward = new Date('2026-03-08T06:00:00Z') // 01:00 EST
    // 03:00 on the wall clock, one real hour later: 02:00 does not exist that night.
    expect(parseDateInput('+2 hours', NY, beforeSpringForward)).toBe('2026-03-08 03:00:00')
    expect(parseDateInput('+1 day', NY, beforeSpringForward)).toBe('2026-03-09 01:00:00')
    // 2026-10-04 00:30 at Lord Howe (+10:30); DST adds 30 minutes at 02:00.
    expect(parseDateInput('+3 hours', LORD_HOWE, new Date('2026-10-03T14:00:00Z'))).toBe('2026-10-04 03:30:00')
  })
})

describe('parse: DST edges', () => {
  it('moves gap times forward, so the result always exists', () => {
    expect(parseDateInput('2026-03-08 02:30', NY, NOW)).toBe('2026-03-08 03:30:00')
    expect(parseDateToUtc('2026-03-08 02:30', NY, NOW)).toEqual({
      local: '2026-03-08 03:30:00',
      utc: '2026-03-08 07:30:00',
    })
    expect(parseDateToUtc('2026-03-29 02:30', BERLIN, NOW)).toEqual({
      local: '2026-03-29 03:30:00',
      utc: '2026-03-29 01:30:00',
    })
  })

  it('keeps overlap times and resolves them to the first occurrence', () => {
    expect(parseDateToUtc('2026-11-01 01:30', NY, NOW)).toEqual({
      local: '2026-11-01 01:30:00',
      utc: '2026-11-01 05:30:00',
    })
    expect(parseDateToUtc('2026-10-25 02:30', BERLIN, NOW)).toEqual({
      local: '2026-10-25 02:30:00',
      utc: '2026-10-25 00:30:00',
    })
  })
})

describe('parse: parseDateToUtc', () => {
  it('pairs the local time with its UTC time', () => {
    expect(parseDateToUtc('2026-11-26 19:00', NY, NOW)).toEqual({
      local: '2026-11-26 19:00:00',
      utc: '2026-11-27 00:00:00',
    })
    expect(parseDateToUtc('tomorrow 9am', KOLKATA, NOW)).toEqual({
      local: '2026-11-23 09:00:00',
      utc: '2026-11-23 03:30:00',
    })
    expect(parseDateToUtc('2026-11-26T19:00:00Z', BERLIN, NOW)).toEqual({
      local: '2026-11-26 20:00:00',
      utc: '2026-11-26 19:00:00',
    })
  })

  it('is null when the input is not a date', () => {
    expect(parseDateToUtc('garbage', NY, NOW)).toBeNull()
  })
})

describe('parse: rejection', () => {
  const rejected: unknown[] = [
    'garbage',
    'before my birthday',
    '',
    '   ',
    'at',
    '2026-13-45',
    '2026-02-30',
    '2026-02-29',
    '2026-11-26 25:00',
    '25:00',
    '13pm',
    '0am',
    '12:60',
    '26/11/2026',
    '2026-11-26 19:00 19:00',
    '2026-11-26 2026-11-27',
    'monday friday',
    // PHP drops a time written before a day word: refused rather than misread.
    '9am tomorrow',
    'noon tomorrow',
    '4pm next monday',
    'noon today',
    'first day of next year',
    'first day of next month +3 days',
    '2 mondays ago',
    'monday ago',
    'november',
    'next',
    '+1',
    '1 parsec',
    '2026-11-26T19:00:00+25:00',
    'tomorrow 9am garbage',
    '0999-12-31',
    '1000-01-01 00:00 +0 days -1 second',
    '+100000 years',
    '99999999999999',
    '2026-11-26T',
    {},
    [],
    ['2026-11-26'],
    { date: '2026-11-26' },
    true,
    false,
    null,
    undefined,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    1e20,
    BigInt(1),
  ]
  for (const input of rejected) {
    it(`rejects ${typeof input === 'bigint' ? 'a bigint' : (JSON.stringify(input) ?? String(input))}`, () => {
      expect(parseDateInput(input, NY, NOW)).toBeNull()
    })
  }

  it('needs both the local and the UTC time within years 1000..9999', () => {
    expect(parseDateInput('1000-01-01', NY, NOW)).toBe('1000-01-01 00:00:00')
    expect(parseDateInput('1000-01-01', 'Asia/Tokyo', NOW)).toBeNull()
    expect(parseDateInput('9999-12-31 23:00', 'UTC', NOW)).toBe('9999-12-31 23:00:00')
    expect(parseDateInput('9999-12-31 23:00', NY, NOW)).toBeNull()
    expect(parseDateInput('-99999999999', 'UTC', NOW)).toBeNull()
  })

  it('throws for an unknown zone, which is a caller bug rather than bad input', () => {
    expect(() => parseDateInput('2026-11-26', 'Mars/Olympus', NOW)).toThrow(RangeError)
    expect(() => parseDateToUtc('2026-11-26', '', NOW)).toThrow(RangeError)
  })
})
