/**
 * A zone known only from a file's VTIMEZONE (Outlook's "Customized Time Zone", display names
 * such as "Canberra, Melbourne, Sydney") as the IANA zone with the same wall clock at every
 * sampled instant of two years around now, so a series keeps its wall-clock time across DST
 * changes as the router's own zones do. Runs inside the parse worker, within the event's budget.
 */
import ICAL from 'ical.js'
import { utcToLocal } from '../time/zone.js'

const SAMPLES = 48
const STEP_MS = (730 / SAMPLES) * 86_400_000

/** The wall clock `zone` shows at each sample: the zone's fingerprint. */
function fileZoneWalls(zone: ICAL.Timezone, from: number): string[] {
  const out: string[] = []
  for (let i = 0; i < SAMPLES; i++) {
    const t = ICAL.Time.fromJSDate(new Date(from + i * STEP_MS), true).convertToZone(zone)
    out.push(t.toString().replace('T', ' ').slice(0, 19))
  }
  return out
}

const utcWall = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

/**
 * The IANA zone matching `zone`, preferring one whose city the TZID names, else the first in
 * alphabetical order among the matches (Antarctic stations last); null when none matches.
 *
 * @example
 * matchIanaZone(fileZone, 'Canberra, Melbourne, Sydney', new Date()) // 'Australia/Canberra'
 */
export function matchIanaZone(zone: ICAL.Timezone, tzid: string, now: Date): string | null {
  const from = Date.UTC(now.getUTCFullYear() - 1, 0, 1, 12)
  const want = fileZoneWalls(zone, from)
  const matches: string[] = []
  for (const candidate of Intl.supportedValuesOf('timeZone')) {
    if (!candidate.includes('/') || candidate.startsWith('Etc/')) continue
    let same = true
    for (let i = 0; i < SAMPLES && same; i++) same = utcToLocal(utcWall(from + i * STEP_MS), candidate) === want[i]
    if (same) matches.push(candidate)
  }
  const said = tzid.toLowerCase()
  const named = matches.find((m) => said.includes(m.split('/').pop()!.replace(/_/g, ' ').toLowerCase()))
  // A zone of the area the TZID names (`/Europe/CUSTOM`: Europe, not Africa/Ceuta), then where
  // people live before research stations that keep a neighbour's clock.
  const rank = (z: string) => (said.includes(`${z.split('/')[0]!.toLowerCase()}/`) ? 0 : 1) + (z.startsWith('Antarctica/') ? 2 : 0)
  return named ?? matches.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1))[0] ?? null
}
