import { describe, expect, it } from 'vitest'
import { daysFromCivil } from '../src/time/format.js'
import { ZoneOffsets, zoneFormat } from '../src/time/offsets.js'

/** The reference: Intl's fields for the instant, read one by one, as wall seconds minus the instant. */
const formats = new Map<string, Intl.DateTimeFormat>()
function referenceOffset(zone: string, epochSeconds: number): number {
  let format = formats.get(zone)
  if (!format)
    formats.set(
      zone,
      (format = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        era: 'short',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })),
    )
  const parts = format.formatToParts(new Date(epochSeconds * 1000))
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value)
  const bc = parts.find((p) => p.type === 'era')!.value === 'BC'
  // Not Date.UTC: the wall clock of the last instants lies outside Date's range.
  const days = daysFromCivil(bc ? 1 - get('year') : get('year'), get('month'), get('day'))
  return days * 86400 + get('hour') * 3600 + get('minute') * 60 + get('second') - epochSeconds
}

const ZONES = [
  'America/New_York',
  'Europe/Berlin',
  'Australia/Sydney',
  'Australia/Lord_Howe', // 30-minute DST
  'Africa/Casablanca', // DST suspended for Ramadan: two transitions a month apart
  'Pacific/Apia', // skipped a whole day in 2011
  'America/Sao_Paulo',
  'Asia/Kolkata',
  'Europe/Dublin', // negative DST in tzdata
]

/** The first second of each new offset of `zone` between two instants (one per day at most). */
function transitions(zone: string, from: number, to: number): number[] {
  const out: number[] = []
  for (let t = from; t + 86400 <= to; t += 86400) {
    let [lo, hi] = [t, t + 86400]
    const before = referenceOffset(zone, lo)
    if (referenceOffset(zone, hi) === before) continue
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2)
      if (referenceOffset(zone, mid) === before) lo = mid
      else hi = mid
    }
    out.push(hi)
  }
  return out
}

describe('time: a zone’s offsets, remembered by day', () => {
  it('agrees with Intl at every second around each transition of 2010-2030', () => {
    let checked = 0
    const wrong: string[] = []
    for (const zone of ZONES) {
      const offsets = new ZoneOffsets(zoneFormat(zone))
      // The seconds either side of each transition, and every ten minutes of the days around it.
      for (const at of transitions(zone, 1_262_304_000, 1_893_456_000)) {
        for (let t = at - 86400; t <= at + 86400; t += 600) {
          for (const s of [t, at - 1, at, at + 1]) {
            if (offsets.at(s) !== referenceOffset(zone, s)) wrong.push(`${zone} at ${s}`)
            checked++
          }
        }
      }
    }
    expect(wrong).toEqual([])
    expect(checked).toBeGreaterThan(100_000)
  })

  it('agrees with Intl at random instants from 1 BC to 2400 (seeded)', () => {
    let seed = 20261123
    // A small LCG: the instants must be the same on every run.
    const r = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (const zone of ZONES) {
      const offsets = new ZoneOffsets(zoneFormat(zone))
      for (let i = 0; i < 400; i++) {
        const s = Math.floor(-62_200_000_000 + r() * (13_600_000_000 + 62_200_000_000))
        expect(offsets.at(s), `${zone} at ${s}`).toBe(referenceOffset(zone, s))
      }
    }
  })

  it('is right on the last days Date can show', () => {
    const offsets = new ZoneOffsets(zoneFormat('Europe/Berlin'))
    for (const s of [8.64e12, 8.64e12 - 86400, -8.64e12, -8.64e12 + 1]) expect(offsets.at(s)).toBe(referenceOffset('Europe/Berlin', s))
  })

  it('falls back to formatToParts when the formatted text has another shape', () => {
    const real = zoneFormat('America/New_York')
    // A runtime whose `format` spells the date differently (as another CLDR version might).
    const odd = {
      format: (date?: Date | number) => `on ${real.format(date)}`,
      formatToParts: (date?: Date | number) => real.formatToParts(date),
    } as Intl.DateTimeFormat
    const offsets = new ZoneOffsets(odd)
    for (const s of [1_710_054_000, 1_710_054_000 - 1, 1_730_613_600, 1_730_613_600 - 1, 0])
      expect(offsets.at(s)).toBe(referenceOffset('America/New_York', s))
  })
})
