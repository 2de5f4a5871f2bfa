/**
 * Rules with their start, zone and duration: the DST corpus. Each entry crosses at least one
 * DST change of its zone; the set covers weekly several days, monthly last Friday, BYSETPOS,
 * yearly, UNTIL vs COUNT, INTERVAL and EXDATE, in America/New_York, Europe/Berlin and
 * Australia/Sydney (whose DST runs October to April).
 */
export interface CorpusRule {
  rule: string
  start: string
  end: string
  tz: string
  exdate?: string[]
  rdate?: string[]
}

const zones = ['America/New_York', 'Europe/Berlin', 'Australia/Sydney'] as const

const shapes: Array<Omit<CorpusRule, 'tz'>> = [
  { rule: 'FREQ=WEEKLY;BYDAY=TU,TH;COUNT=40', start: '2026-02-03 19:00:00', end: '2026-02-03 20:30:00' },
  { rule: 'FREQ=MONTHLY;BYDAY=-1FR;COUNT=14', start: '2026-01-30 18:00:00', end: '2026-01-30 21:00:00' },
  { rule: 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=13', start: '2026-01-30 09:00:00', end: '2026-01-30 10:00:00' },
  { rule: 'FREQ=YEARLY;BYMONTH=1,3,7,10;BYDAY=-1SU;COUNT=10', start: '2026-03-29 02:30:00', end: '2026-03-29 03:30:00' },
  { rule: 'FREQ=DAILY;INTERVAL=3;UNTIL=20261115T000000Z', start: '2026-03-01 07:15:00', end: '2026-03-01 08:00:00' },
  { rule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR;WKST=SU;COUNT=60', start: '2026-01-05 12:00:00', end: '2026-01-05 13:00:00' },
  { rule: 'FREQ=MONTHLY;BYMONTHDAY=1,-1;COUNT=24', start: '2026-01-01 08:00:00', end: '2026-01-01 09:00:00' },
  {
    rule: 'FREQ=WEEKLY;BYDAY=SU;COUNT=40',
    start: '2026-02-22 02:30:00',
    end: '2026-02-22 03:30:00',
    exdate: ['2026-03-08', '2026-04-05', '2026-10-04'],
  },
  { rule: 'FREQ=YEARLY;BYMONTH=1,3,9;COUNT=9', start: '2026-03-08 02:30:00', end: '2026-03-08 04:00:00' },
  { rule: 'FREQ=MONTHLY;INTERVAL=2;BYDAY=2TH;UNTIL=20271231', start: '2026-01-08 17:00:00', end: '2026-01-08 18:00:00' },
  {
    rule: 'FREQ=DAILY;BYDAY=SA,SU;BYMONTH=3,4,10,11;COUNT=40',
    start: '2026-03-01 10:00:00',
    end: '2026-03-01 11:00:00',
    rdate: ['2026-06-10 10:00:00'],
  },
]

export const CORPUS: CorpusRule[] = zones.flatMap((tz) => shapes.map((s) => ({ ...s, tz })))
