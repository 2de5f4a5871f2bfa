/**
 * Time zones: IANA names through the runtime's `Intl` (no bundled tzdata), plus WordPress's
 * fixed-offset spellings `UTC+5`, `UTC-9:30`, `UTC+5.5`.
 *
 * All zone maths works on whole seconds: "epoch seconds" of an instant, and "wall seconds" of a
 * wall clock read as if it were UTC (see `partsToEpochSeconds`); offset = wall − epoch.
 */
import { epochSecondsToParts, formatWallClock, partsToEpochSeconds, requireWallClock } from './format.js'
import { ZoneOffsets, zoneFormat } from './offsets.js'

type Zone =
  | { kind: 'fixed'; name: string; offset: number }
  | { kind: 'iana'; name: string; resolved: string; offsets: ZoneOffsets; short: Intl.DateTimeFormat }

// WordPress stores half hours as decimals (`UTC+5.5`); ISO-ish `UTC+05:30` is accepted too.
const OFFSET_ZONE = /^utc([+-])(\d{1,2})(?::(\d{2})|\.(\d{1,2}))?$/i
const MAX_OFFSET_MINUTES = 14 * 60
// Letters first so that bare offsets (`+5`, `-03:00`), which some runtimes accept, are refused.
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/

/** Minutes east of UTC for an offset spelling, or null when `tz` is not one. */
function parseOffsetZone(tz: string): number | null {
  const m = OFFSET_ZONE.exec(tz)
  if (!m) return null
  const [, sign, hours, colonMinutes, fraction] = m
  let minutes = 0
  if (colonMinutes !== undefined) {
    minutes = Number(colonMinutes)
    if (minutes > 59) return null
  } else if (fraction !== undefined) {
    minutes = (Number(fraction.padEnd(2, '0')) * 60) / 100
    if (!Number.isInteger(minutes)) return null
  }
  const total = Number(hours) * 60 + minutes
  if (total > MAX_OFFSET_MINUTES) return null
  return sign === '-' ? -total : total
}

function formatOffsetZone(minutes: number): string {
  const abs = Math.abs(minutes)
  const hours = Math.floor(abs / 60)
  const rest = abs % 60
  return `UTC${minutes < 0 ? '-' : '+'}${hours}${rest ? `:${String(rest).padStart(2, '0')}` : ''}`
}

function resolveIana(tz: string): string | null {
  if (!IANA_NAME.test(tz)) return null
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone
  } catch {
    // Intl refuses the name: not a zone this runtime knows (its refusal is the answer).
    return null
  }
}

const zones = new Map<string, Zone>()
// Keys are caller-supplied strings; the cap keeps odd spellings from growing the map forever.
const MAX_CACHED_ZONES = 1000

function lookupZone(tz: string): Zone | null {
  if (typeof tz !== 'string') return null
  const cached = zones.get(tz)
  if (cached) return cached
  const zone = buildZone(tz)
  if (zone) {
    if (zones.size >= MAX_CACHED_ZONES) zones.clear()
    zones.set(tz, zone)
  }
  return zone
}

function buildZone(tz: string): Zone | null {
  const fixed = parseOffsetZone(tz)
  if (fixed !== null) return { kind: 'fixed', name: formatOffsetZone(fixed), offset: fixed * 60 }
  const resolved = resolveIana(tz)
  if (resolved === null) return null
  if (resolved === 'UTC') return { kind: 'fixed', name: 'UTC', offset: 0 }
  return {
    kind: 'iana',
    name: canonicalIanaName(tz, resolved),
    resolved,
    offsets: offsetsOf(resolved),
    short: new Intl.DateTimeFormat('en-US', { timeZone: resolved, timeZoneName: 'short' }),
  }
}

// One per real zone, shared by every spelling of its name (they are cached separately above).
const offsetsByZone = new Map<string, ZoneOffsets>()

function offsetsOf(resolved: string): ZoneOffsets {
  let offsets = offsetsByZone.get(resolved)
  if (!offsets) offsetsByZone.set(resolved, (offsets = new ZoneOffsets(zoneFormat(resolved))))
  return offsets
}

function requireZone(tz: string): Zone {
  const zone = lookupZone(tz)
  if (!zone) throw new RangeError(`unknown time zone: ${JSON.stringify(tz)}`)
  return zone
}

let supportedByLowerCase: Map<string, string> | undefined

/**
 * Keeps the name the user chose. Runtimes disagree on aliases (Node 20 turns `Asia/Kolkata`
 * into `Asia/Calcutta`, newer ones keep it), so a stored name must not depend on the runtime:
 * we only borrow Intl's spelling to fix letter case, and fall back to Intl's own name when the
 * input's case cannot be repaired (`asia/kolkata` on Node 20 becomes `Asia/Calcutta`).
 */
function canonicalIanaName(tz: string, resolved: string): string {
  const lower = tz.toLowerCase()
  if (lower === resolved.toLowerCase()) return resolved
  supportedByLowerCase ??= new Map(Intl.supportedValuesOf('timeZone').map((name) => [name.toLowerCase(), name]))
  const supported = supportedByLowerCase.get(lower)
  if (supported) return supported
  // `US/Eastern`, `EST`, `Asia/Kolkata` look deliberate; `asia/kolkata` or `ASIA/KOLKATA` do not.
  const properlyCased = tz.split('/').every((segment) => /^[A-Z0-9]/.test(segment)) && (/[a-z]/.test(tz) || !tz.includes('/'))
  return properlyCased ? tz : resolved
}

/** Offset in seconds east of UTC at an instant. */
function offsetAt(zone: Zone, epochSeconds: number): number {
  return zone.kind === 'fixed' ? zone.offset : zone.offsets.at(epochSeconds)
}

/**
 * The instant a wall clock names. An offset is right when reading the instant back gives the
 * same offset; trying the offsets in force a day either side covers any single transition.
 * Two right answers: a fall-back overlap, take the earlier. None: a spring-forward gap, use
 * the offset from before the gap, which lands as far past the gap as the input was into it
 * (PHP and Temporal's "compatible" behaviour).
 */
function wallToEpoch(zone: Zone, wall: number): number {
  return resolveWall(zone, wall).epoch
}

/** wallToEpoch, and how many instants have that wall clock: 1, or 0 (a gap) or 2 (an overlap). */
function resolveWall(zone: Zone, wall: number): { epoch: number; instants: number } {
  if (zone.kind === 'fixed') return { epoch: wall - zone.offset, instants: 1 }
  const before = offsetAt(zone, wall - 86400)
  const after = offsetAt(zone, wall + 86400)
  let best: number | undefined
  let instants = 0
  for (const offset of new Set([before, after, offsetAt(zone, wall)])) {
    const epoch = wall - offset
    if (offsetAt(zone, epoch) !== offset) continue
    instants++
    if (best === undefined || epoch < best) best = epoch
  }
  return { epoch: best ?? wall - before, instants }
}

export function isValidTimezone(tz: string): boolean {
  return lookupZone(tz) !== null
}

/** Throws a RangeError for an unknown zone. */
export function canonicalTimezone(tz: string): string {
  return requireZone(tz).name
}

/** Whole seconds count: sub-minute offsets (local mean time before ~1900) give fractions. */
export function offsetMinutes(tz: string, utcInstant: Date): number {
  const ms = utcInstant.getTime()
  if (Number.isNaN(ms)) throw new RangeError('Invalid Date')
  return offsetAt(requireZone(tz), Math.floor(ms / 1000)) / 60
}

export function localToUtc(wall: string, tz: string): string {
  const zone = requireZone(tz)
  return formatWallClock(epochSecondsToParts(wallToEpoch(zone, partsToEpochSeconds(requireWallClock(wall)))))
}

/**
 * False when `wall` does not exist in `tz` (a DST gap) or exists twice (an overlap): the times
 * readers resolve differently, and whose occurrences keep their length as elapsed time. Costs
 * no more than localToUtc (the same offsets, remembered).
 */
export function isRegularWallClock(wall: string, tz: string): boolean {
  return resolveWall(requireZone(tz), partsToEpochSeconds(requireWallClock(wall))).instants === 1
}

export function utcToLocal(utcWall: string, tz: string): string {
  const zone = requireZone(tz)
  const epoch = partsToEpochSeconds(requireWallClock(utcWall))
  return formatWallClock(epochSecondsToParts(epoch + offsetAt(zone, epoch)))
}

/** `+05:30`; sub-minute offsets are truncated, as PHP's `P` format does. */
export function isoOffset(tz: string, utcWall: string): string {
  const offset = offsetAt(requireZone(tz), partsToEpochSeconds(requireWallClock(utcWall)))
  const { sign, hours, minutes } = splitOffset(offset)
  return `${sign}${hours}:${minutes}`
}

function splitOffset(offsetSeconds: number): { sign: string; hours: string; minutes: string } {
  const abs = Math.floor(Math.abs(offsetSeconds) / 60)
  return {
    sign: offsetSeconds < 0 ? '-' : '+',
    hours: String(Math.floor(abs / 60)).padStart(2, '0'),
    minutes: String(abs % 60).padStart(2, '0'),
  }
}

/**
 * The abbreviation PHP would print (tzdata's): Intl's en-US short name when it is a real
 * abbreviation (EST, PDT, AKST, GMT...), tzdata's letters for the zones en-US only names
 * `GMT+x`, otherwise tzdata's numeric style `+09`, `-03`, `+0530`. Other locales' names were
 * not used: they disagree with tzdata (en-IN calls Dubai "GST", en-AU calls Lord Howe "LHST")
 * and vary with the runtime's CLDR version.
 */
const abbrMemo = new Map<string, string>()
const ABBR_MEMO_MAX = 20_000

export function timezoneAbbr(tz: string, utcWall: string): string {
  const key = `${tz}|${utcWall}`
  let abbr = abbrMemo.get(key)
  if (abbr === undefined) {
    abbr = computeAbbr(tz, utcWall)
    if (abbrMemo.size >= ABBR_MEMO_MAX) abbrMemo.clear()
    abbrMemo.set(key, abbr)
  }
  return abbr
}

function computeAbbr(tz: string, utcWall: string): string {
  const zone = requireZone(tz)
  if (zone.kind === 'fixed') return zone.name
  const epoch = partsToEpochSeconds(requireWallClock(utcWall))
  const offset = offsetAt(zone, epoch)
  // Offsets with seconds only occur before standard time was adopted; tzdata calls that LMT.
  if (offset % 60 !== 0) return 'LMT'
  const fromTable = letterAbbreviation(zone.name, offset) ?? letterAbbreviation(zone.resolved, offset)
  if (fromTable) return fromTable
  const short = zone.short.formatToParts(new Date(epoch * 1000)).find((p) => p.type === 'timeZoneName')?.value
  if (short && /^[A-Za-z]+$/.test(short) && (short !== 'GMT' || offset === 0)) return short
  const { sign, hours, minutes } = splitOffset(offset)
  return `${sign}${hours}${minutes === '00' ? '' : minutes}`
}

/**
 * tzdata (2025) abbreviations of zones whose en-US Intl name is `GMT+x`, with the offsets (in
 * minutes) they apply to: "Area/City,City2" lists share the area. Offsets keep historical
 * instants honest: Moscow at +4 in 2012 is not "MSK" and falls through to `+04`.
 */
const LETTER_ABBREVIATIONS: ReadonlyArray<readonly [string, string]> = [
  ['EAT 180', 'Africa/Addis_Ababa,Asmara,Asmera,Dar_es_Salaam,Djibouti,Kampala,Mogadishu,Nairobi Indian/Antananarivo,Comoro,Mayotte'],
  ['CET 60', 'Africa/Algiers,Tunis'],
  ['WAT 60', 'Africa/Bangui,Brazzaville,Douala,Kinshasa,Lagos,Libreville,Luanda,Malabo,Ndjamena,Niamey,Porto-Novo'],
  ['CAT 120', 'Africa/Blantyre,Bujumbura,Gaborone,Harare,Juba,Khartoum,Kigali,Lubumbashi,Lusaka,Maputo,Windhoek'],
  [
    'EET 120 EEST 180',
    'Africa/Cairo Asia/Beirut,Famagusta,Gaza,Hebron,Nicosia Europe/Athens,Bucharest,Chisinau,Helsinki,Kiev,Kyiv,Mariehamn,Nicosia,Riga,Sofia,Tallinn,Tiraspol,Uzhgorod,Vilnius,Zaporozhye',
  ],
  [
    'CET 60 CEST 120',
    'Africa/Ceuta Arctic/Longyearbyen Atlantic/Jan_Mayen Europe/Amsterdam,Andorra,Belgrade,Berlin,Bratislava,Brussels,Budapest,Busingen,Copenhagen,Gibraltar,Ljubljana,Luxembourg,Madrid,Malta,Monaco,Oslo,Paris,Podgorica,Prague,Rome,San_Marino,Sarajevo,Skopje,Stockholm,Tirane,Vaduz,Vatican,Vienna,Warsaw,Zagreb,Zurich',
  ],
  ['SAST 120', 'Africa/Johannesburg,Maseru,Mbabane'],
  ['EET 120', 'Africa/Tripoli Europe/Kaliningrad'],
  ['HST -600 HDT -540', 'America/Adak,Atka'],
  ['MST -420', 'America/Dawson,Hermosillo,Mazatlan,Whitehorse'],
  ['CST -300 CDT -240', 'America/Havana'],
  ['NST -210 NDT -150', 'America/St_Johns'],
  ['AEST 600 AEDT 660', 'Antarctica/Macquarie Australia/ACT,Canberra,Currie,Hobart,Melbourne,NSW,Sydney,Tasmania,Victoria'],
  ['NZST 720 NZDT 780', 'Antarctica/McMurdo,South_Pole Pacific/Auckland'],
  ['IST 330', 'Asia/Calcutta,Kolkata'],
  ['CST 480', 'Asia/Chongqing,Chungking,Harbin,Macao,Macau,Shanghai,Taipei'],
  ['HKT 480', 'Asia/Hong_Kong'],
  ['WIB 420', 'Asia/Jakarta,Pontianak'],
  ['WIT 540', 'Asia/Jayapura'],
  ['IST 120 IDT 180', 'Asia/Jerusalem,Tel_Aviv'],
  ['PKT 300', 'Asia/Karachi'],
  ['WITA 480', 'Asia/Makassar,Ujung_Pandang'],
  ['PST 480', 'Asia/Manila'],
  ['KST 540', 'Asia/Pyongyang,Seoul'],
  ['JST 540', 'Asia/Tokyo'],
  ['WET 0 WEST 60', 'Atlantic/Canary,Faeroe,Faroe,Madeira Europe/Lisbon'],
  ['ACST 570 ACDT 630', 'Australia/Adelaide,Broken_Hill,South,Yancowinna'],
  ['AEST 600', 'Australia/Brisbane,Lindeman,Queensland'],
  ['ACST 570', 'Australia/Darwin,North'],
  ['AWST 480', 'Australia/Perth,West'],
  ['BST 60', 'Europe/Belfast,Guernsey,Isle_of_Man,Jersey,London'],
  ['IST 60', 'Europe/Dublin'],
  ['MSK 180', 'Europe/Kirov,Moscow,Simferopol,Volgograd'],
  ['ChST 600', 'Pacific/Guam,Saipan'],
  ['SST -660', 'Pacific/Midway,Pago_Pago,Samoa'],
]

let letterTable: Map<string, Map<number, string>> | undefined

function letterAbbreviation(zoneName: string, offsetSeconds: number): string | undefined {
  letterTable ??= buildLetterTable()
  return letterTable.get(zoneName)?.get(offsetSeconds / 60)
}

function buildLetterTable(): Map<string, Map<number, string>> {
  const table = new Map<string, Map<number, string>>()
  for (const [abbreviations, zoneList] of LETTER_ABBREVIATIONS) {
    const words = abbreviations.split(' ')
    const byOffset = new Map<number, string>()
    for (let i = 0; i + 1 < words.length; i += 2) byOffset.set(Number(words[i + 1]), words[i] as string)
    for (const group of zoneList.split(' ')) {
      const [area, cities = ''] = group.split('/') as [string, string?]
      for (const city of cities.split(',')) table.set(`${area}/${city}`, byOffset)
    }
  }
  return table
}
