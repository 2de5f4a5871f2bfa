/**
 * The plain fields' wire side, as views of the field table (fields.ts, `wire`): what a create
 * stores, what an update changes, what a response shows and what the importers copy, for every
 * field that crosses the wire under one name with nothing but its codec in between. The
 * handlers (resources/events.ts, resources/venues-organizers.ts), the representations
 * (representation/post.ts), the response schemas (schemas/responses.ts) and the importers
 * (readers/csv.ts, import/tec.ts) loop over these, so a new plain field is a row of the table
 * plus its column and its input parameter (docs/architecture.md §5).
 *
 * Like fields.ts it imports nothing but the table and types, so every layer may read it.
 */
import { FIELDS, type FieldName, type FieldOf, type Wire, type WireCodec, type WireValue } from './fields.js'
import type { PostPatch, PostType, RecordOf } from './types.js'

type Table = typeof FIELDS

/** What a codec's values are, on the record and on the wire. */
export interface WireValues {
  flag: boolean
  text: string
  /** One of the row's `choices` (the record's type is their union). */
  choice: string
  url: string | null
}

/** The plain fields a kind of record has (of a union of kinds: those any of them has). */
export type PlainFieldOf<T extends PostType> = T extends PostType
  ? { [K in FieldOf<T>]: Table[K] extends { readonly wire: Wire } ? K : never }[FieldOf<T>]
  : never

/** A plain field's wire name and codec, as the table spells them. */
export type WireNameOf<K extends FieldName> = Table[K] extends { readonly wire: { readonly name: infer N extends string } } ? N : never
export type WireCodecOf<K extends FieldName> = Table[K] extends { readonly wire: { readonly codec: infer C extends WireCodec } } ? C : never
/** Where a response shows a plain field (`WirePart`). */
export type WirePartOf<K extends FieldName> = Table[K] extends { readonly wire: { readonly ours: true } } ? 'ours' : 'tec'
/** A `choice` field's values, as the table lists them. */
export type WireChoicesOf<K extends FieldName> = Table[K] extends { readonly wire: { readonly choices: infer L extends readonly string[] } }
  ? L
  : never

/** The plain fields of a record of type `T`, as the record holds them. */
export type PlainValues<T extends PostType> = Pick<RecordOf<T>, PlainFieldOf<T> & keyof RecordOf<T>>

/** A request's validated input, read by wire name. */
export type WireInput = { readonly [name: string]: unknown }

export interface PlainField<T extends PostType = PostType> {
  readonly field: PlainFieldOf<T>
  readonly wire: string
  readonly codec: WireCodec
  /** What a create that leaves it out stores, and a response shows for a record without a value. */
  readonly absent: WireValue
  /** A `choice`'s values. */
  readonly choices: readonly string[]
  /** Shown after TEC's own keys (fields.ts, `Wire.ours`). */
  readonly ours: boolean
}

interface CodecRules<C extends WireCodec> {
  /** The codec's value when a create leaves the field out. */
  readonly absent: WireValues[C]
  /** A validated input's value (the operation's schema has already coerced it), undefined when not sent. */
  read(x: unknown): WireValues[C] | undefined
  /** Whether a response shows the field's `absent` for a record without a value (undefined or null). */
  readonly fills: boolean
  /** Whether the TEC importer copies a site's value as is (import/tec.ts, `plainFromTec`). */
  fromTec(x: unknown): boolean
}

const given = (x: unknown) => x !== undefined && x !== null

const CODECS: { readonly [C in WireCodec]: CodecRules<C> } = {
  // p.boolean() and the venues' flag() both turn what was sent into a boolean.
  flag: { absent: false, read: (x) => (typeof x === 'boolean' ? x : undefined), fills: false, fromTec: (x) => typeof x === 'boolean' },
  text: { absent: '', read: (x) => (x === null ? '' : typeof x === 'string' ? x : undefined), fills: true, fromTec: given },
  choice: { absent: '', read: (x) => (typeof x === 'string' ? x : undefined), fills: true, fromTec: given },
  url: {
    absent: null,
    read: (x) => (x === undefined ? undefined : typeof x === 'string' && x !== '' ? x : null),
    fills: true,
    fromTec: given,
  },
}

const entries = Object.entries(FIELDS) as Array<[FieldName, (typeof FIELDS)[FieldName]]>

function plainOf<T extends PostType>(kind: T): ReadonlyArray<PlainField<T>> {
  const out: Array<PlainField<T>> = []
  for (const [name, f] of entries) {
    if (!('wire' in f) || f[kind as keyof typeof f] === undefined) continue
    const w: Wire = f.wire
    out.push({
      field: name as PlainFieldOf<T>,
      wire: w.name,
      codec: w.codec,
      absent: w.absent?.[kind] ?? CODECS[w.codec].absent,
      choices: w.choices ?? [],
      ours: w.ours === true,
    })
  }
  return out
}

/** Each kind's plain fields in table order, which is the order a response shows them in (TEC's, then ours). */
export const PLAIN_FIELDS: { readonly [T in PostType]: ReadonlyArray<PlainField<T>> } = {
  event: plainOf('event'),
  venue: plainOf('venue'),
  organizer: plainOf('organizer'),
}

/** A new record's plain fields from a create's input: what was sent, else the field's `absent`. */
export function plainCreated<T extends PostType>(kind: T, input: WireInput): PlainValues<T> {
  const out: Record<string, unknown> = {}
  for (const p of PLAIN_FIELDS[kind]) out[p.field] = CODECS[p.codec].read(input[p.wire]) ?? p.absent
  return out as PlainValues<T>
}

/** An update's plain fields: only those sent change (docs/wire-compatibility.md §5.1). */
export function patchPlain<T extends PostType>(kind: T, input: WireInput, patch: PostPatch<T>): void {
  const out = patch as Record<string, unknown>
  for (const p of PLAIN_FIELDS[kind]) {
    const value = CODECS[p.codec].read(input[p.wire])
    if (value !== undefined) out[p.field] = value
  }
}

/** Which of a record's plain fields a spot of its representation shows: TEC's own, or our extensions after TEC's keys. */
export type WirePart = 'tec' | 'ours'

/** What a representation reads of a plain field, flat: one object per field, read once per record shown. */
interface Shown {
  readonly field: string
  readonly wire: string
  /** The field's `absent` when its codec fills a missing value, else undefined (shown as the record holds it). */
  readonly fill: WireValue | undefined
}

function shownOf(fields: ReadonlyArray<PlainField>, ours: boolean): readonly Shown[] {
  return fields
    .filter((p) => p.ours === ours)
    .map((p) => ({ field: p.field, wire: p.wire, fill: CODECS[p.codec].fills ? p.absent : undefined }))
}

const SHOWN: { readonly [T in PostType]: { readonly [P in WirePart]: readonly Shown[] } } = {
  event: { tec: shownOf(PLAIN_FIELDS.event, false), ours: shownOf(PLAIN_FIELDS.event, true) },
  venue: { tec: shownOf(PLAIN_FIELDS.venue, false), ours: shownOf(PLAIN_FIELDS.venue, true) },
  organizer: { tec: shownOf(PLAIN_FIELDS.organizer, false), ours: shownOf(PLAIN_FIELDS.organizer, true) },
}

/**
 * Writes one part of a record's plain fields into its representation under their wire names,
 * in table order. On every read's path (when the fragment cache is off): a plain loop over
 * prepared entries, with no look-up beyond the record's own field.
 */
export function showPlain<T extends PostType>(kind: T, part: WirePart, record: RecordOf<T>, out: Record<string, unknown>): void {
  const values = record as unknown as Record<string, unknown>
  const shown = SHOWN[kind][part]
  for (let i = 0; i < shown.length; i++) {
    const p = shown[i]!
    const value = values[p.field]
    out[p.wire] = p.fill !== undefined && (value === undefined || value === null) ? p.fill : value
  }
}

/** One part of a kind's plain fields (the response schemas place each part). */
export const plainPart = <T extends PostType>(kind: T, part: WirePart): ReadonlyArray<PlainField<T>> =>
  PLAIN_FIELDS[kind].filter((p) => p.ours === (part === 'ours'))

/** Copies the plain fields of a record read from a TEC site that its importer keeps (import/tec.ts). */
export function plainFromTec(kind: PostType, source: WireInput, body: Record<string, unknown>): void {
  for (const p of PLAIN_FIELDS[kind]) if (CODECS[p.codec].fromTec(source[p.wire])) body[p.wire] = source[p.wire]
}

/** The wire names of a kind's plain fields, in table order. */
export const plainWireNames = (kind: PostType): string[] => PLAIN_FIELDS[kind].map((p) => p.wire)

/** An event's CSV column (fields.ts, `wire.csv`): our name for it, TEC's headers, and the field it sets. */
export type CsvColumnName = {
  [K in PlainFieldOf<'event'>]: Table[K] extends { readonly wire: { readonly csv: { readonly column: infer C extends string } } }
    ? C
    : never
}[PlainFieldOf<'event'>]

export interface CsvColumn {
  readonly column: CsvColumnName
  readonly headers: readonly string[]
  readonly wire: string
  readonly codec: WireCodec
}

/** The event columns of the CSV importer that the table declares, in table order. */
export const CSV_COLUMNS: readonly CsvColumn[] = entries.flatMap(([, f]) => {
  if (!('wire' in f) || !('event' in f)) return []
  const w: Wire = f.wire
  return w.csv ? [{ column: w.csv.column as CsvColumnName, headers: w.csv.headers, wire: w.name, codec: w.codec }] : []
})

// The check that keeps codecs honest: each plain field's record type is its codec's value (a
// choice's: the union of its choices).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type Fits<R, K extends FieldName> =
  WireCodecOf<K> extends 'choice' ? Same<R, WireChoicesOf<K>[number]> : Same<R, WireValues[WireCodecOf<K>]>
type Assert<T extends true> = T
type CodecFits<T extends PostType> = [{ [K in PlainFieldOf<T>]: Fits<RecordOf<T>[K & keyof RecordOf<T>], K> }[PlainFieldOf<T>]] extends [
  true,
]
  ? true
  : false
export type PlainCodecsFit = [Assert<CodecFits<'event'>>, Assert<CodecFits<'venue'>>, Assert<CodecFits<'organizer'>>]
