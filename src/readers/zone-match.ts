/**
 * A zone known only from a file's VTIMEZONE (Outlook's "Customized Time Zone", display names
 * such as "Canberra, Melbourne, Sydney") as the IANA zone with the same wall clock at every
 * sampled instant of two years around now (the same offset from UTC), so a series keeps its
 * wall-clock time across DST changes as the router's own zones do. Runs inside the parse worker, within the event's budget.
 */
import ICAL from 'ical.js'

const SAMPLES = 48
const STEP_MS = (730 / SAMPLES) * 86_400_000

/** The offset (minutes east of UTC) `zone` has at each sample: the zone's fingerprint. */
function fileZoneOffsets(zone: ICAL.Timezone, from: number): number[] {
  const out: number[] = []
  for (let i = 0; i < SAMPLES; i++) {
    const at = from + i * STEP_MS
    const wall = ICAL.Time.fromJSDate(new Date(at), true).convertToZone(zone).toString().slice(0, 19)
    out.push(Math.round((Date.parse(`${wall}Z`) - at) / 60_000))
  }
  return out
}

/**
 * The offset a `longOffset` formatter shows at `at` (`GMT+10:00`, `GMT-03:30`, `GMT`), in minutes.
 * One such formatter per candidate zone, rather than the three the router's zone code builds:
 * building formatters is most of the cost, and a parse worker pays it for every zone once.
 */
function offsetShown(format: Intl.DateTimeFormat, at: number): number {
  const name = format.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT'
  const m = /^GMT([+-])(\d{1,2})(?::(\d{2}))?/.exec(name)
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0)) : 0
}

// Built once per process (a parse worker): the zones and their formatters never change.
let formats: Array<[string, Intl.DateTimeFormat]> | undefined

/** Every IANA zone of a region (`Area/City`) with its `longOffset` formatter. */
function candidates(): Array<[string, Intl.DateTimeFormat]> {
  formats ??= Intl.supportedValuesOf('timeZone')
    .filter((z) => z.includes('/') && !z.startsWith('Etc/'))
    .map((z) => [z, new Intl.DateTimeFormat('en-US', { timeZone: z, timeZoneName: 'longOffset' })])
  return formats
}

/**
 * The IANA zone matching `zone`, preferring one whose city the TZID names, else the first in
 * alphabetical order among the matches (Antarctic stations last); null when none matches.
 *
 * @example
 * matchIanaZone(fileZone, 'Canberra, Melbourne, Sydney', new Date()) // 'Australia/Canberra'
 */
export function matchIanaZone(zone: ICAL.Timezone, tzid: string, now: Date): string | null {
  const from = Date.UTC(now.getUTCFullYear() - 1, 0, 1, 12)
  const want = fileZoneOffsets(zone, from)
  const matches: string[] = []
  for (const [candidate, format] of candidates()) {
    let same = true
    for (let i = 0; i < SAMPLES && same; i++) same = offsetShown(format, from + i * STEP_MS) === want[i]
    if (same) matches.push(candidate)
  }
  const said = tzid.toLowerCase()
  const named = matches.find((m) => said.includes(m.split('/').pop()!.replace(/_/g, ' ').toLowerCase()))
  // A zone of the area the TZID names (`/Europe/CUSTOM`: Europe, not Africa/Ceuta), then where
  // people live before research stations that keep a neighbour's clock.
  const rank = (z: string) => (said.includes(`${z.split('/')[0]!.toLowerCase()}/`) ? 0 : 1) + (z.startsWith('Antarctica/') ? 2 : 0)
  return named ?? matches.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1))[0] ?? null
}
