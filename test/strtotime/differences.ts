/**
 * Where the date parser deliberately answers differently from PHP's strtotime, and why. Each
 * entry says what we do instead: refuse the input (a 400), or give the instant PHP gives for
 * a rephrasing that says the same thing unambiguously. docs/dates.md explains them to users.
 */

export type Instead = { kind: 'rejected' } | { kind: 'sameAs'; rephrasings: Readonly<Record<string, string>> }

export interface Difference {
  reason: string
  instead: Instead
  expressions: readonly string[]
}

const rejected: Instead = { kind: 'rejected' }
const sameAs = (rephrasings: Record<string, string>): Instead => ({ kind: 'sameAs', rephrasings })

export const DIFFERENCES: readonly Difference[] = [
  {
    reason:
      'A time written before a day word or weekday: PHP sets the time back to 00:00 and keeps only the day ("7pm tomorrow" is tomorrow at midnight). Refused; "tomorrow 7pm" works.',
    instead: rejected,
    expressions: [
      'noon today',
      'noon tomorrow',
      '9am tomorrow',
      '7pm tomorrow',
      '16:00 tomorrow',
      '18:30 today',
      '4pm next monday',
      '4pm monday',
      '7pm friday',
      'noon sunday',
    ],
  },
  {
    reason: 'A month name alone: PHP takes today\'s day of the month in that month (on January 31, "november" is December 1). Refused.',
    instead: rejected,
    expressions: ['november'],
  },
  {
    reason:
      'An Nth weekday the month does not have: PHP runs on into the next month ("fifth friday of february 2026" is March 6). Refused.',
    instead: rejected,
    expressions: ['fifth friday of february 2026'],
  },
  {
    reason: 'Two weekdays: PHP silently keeps the last one. Refused.',
    instead: rejected,
    expressions: ['monday friday'],
  },
  {
    reason: 'A day the month does not have: PHP rolls over into the next month (February 30 is March 2). Refused.',
    instead: rejected,
    expressions: ['2026-02-30'],
  },
  {
    reason: 'A lone signed number: PHP reads it as a UTC offset ("+1" is now, read as if the clock were one hour east of UTC). Refused.',
    instead: rejected,
    expressions: ['+1'],
  },
  {
    reason:
      '"first/last day of" a year: PHP only knows the day of a month and means this month, in that year. Refused; "first day of january 2027" works.',
    instead: rejected,
    expressions: ['first day of this year', 'first day of next year'],
  },
  {
    reason:
      'Month arithmetic from a day the target month lacks: PHP overflows into the month after (January 31 "+1 month" is March 3); we stop at the month\'s last day.',
    instead: sameAs({
      '+1 month': 'last day of next month',
      'next month': 'last day of next month',
      '-1 month': 'last day of last month',
      '1 month ago': 'last day of last month',
      'last month': 'last day of last month',
    }),
    expressions: ['+1 month', 'next month', '-1 month', '1 month ago', 'last month'],
  },
  {
    reason:
      'A wall-clock time that happens twice (the hour when DST ends): we always take the first; PHP takes the first west of Greenwich and the second east of it.',
    instead: sameAs({
      '2026-10-25 02:30': '2026-10-25 02:30 +02:00',
      '2026-10-25 01:30 +1 hour': '2026-10-25 02:30 +02:00',
      '2026-04-05 02:30': '2026-04-05 02:30 +11:00',
    }),
    expressions: ['2026-10-25 02:30', '2026-10-25 01:30 +1 hour', '2026-04-05 02:30'],
  },
  {
    reason: '"at" between a day and a time: PHP refuses the word; we skip it.',
    instead: sameAs({ 'tomorrow at 9am': 'tomorrow 9am', 'next friday at 8pm': 'next friday 8pm' }),
    expressions: ['tomorrow at 9am', 'next friday at 8pm'],
  },
  {
    reason: 'A month and day without a year followed by am/pm: PHP refuses it (it accepts "Dec 25 18:00"); we read it.',
    instead: sameAs({ 'Dec 25 6pm': 'Dec 25 18:00' }),
    expressions: ['Dec 25 6pm'],
  },
  {
    reason:
      'A string of digits: a Unix timestamp, as the reference API treats numeric values before it calls strtotime (strtotime alone refuses it). Eight digits stay YYYYMMDD.',
    instead: sameAs({ '1764183600': '@1764183600' }),
    expressions: ['1764183600'],
  },
]
