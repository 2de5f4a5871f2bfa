/**
 * Events, venues and organizers written as JSON text from cached fragments: the same bytes
 * `JSON.stringify(eventJson(...))` gives (test/http/fragment-cache.suite.ts compares them).
 *
 * What is cached is what a record's own row and the request's link roots decide: an event's
 * fields `id` to `featured`, a venue's or organizer's fields but its translations (and
 * `json_ld`, which also names the first venue and organizer, under their versions too). What is
 * spliced per request is what the caller or other rows decide: which venues and organizers this
 * caller may see (the relations loaded for this request pick the fragments, so a draft venue's
 * fragment is only ever stitched into a reply for a caller who may read it), terms (their
 * `count` is live), `translations` and the series fields.
 */
import type { Context } from '../context.js'
import { RawJson } from '../http/raw-json.js'
import type { EventRecord, OrganizerRecord, PostRecord, TermWithCount, VenueRecord } from '../storage/types.js'
import { languageFields, type Json } from './common.js'
import { eventOrganizers, eventVenues, type Relations } from './embedded.js'
import type { FragmentCache } from '../cache/fragment-cache.js'
import { eventJsonLd } from './json-ld.js'
import { customFieldsJson, eventStatusFields, eventHead, organizerOwn, sortedTerms, venueOwn } from './post.js'
import { embeddedTerm } from './term.js'

/** `{"a":1,"b":2}` → `"a":1,"b":2`: an object's members, to splice into another. */
const members = (o: Json) => JSON.stringify(o).slice(1, -1)
/** An object's text without its closing brace, so members can follow. */
const open = (o: Json) => JSON.stringify(o).slice(0, -1)

/** The builders of the cached texts (PostWriter.own): an event's head, from `id` to `featured`. */
const headText = (ctx: Context, e: EventRecord) => open(eventHead(ctx, e))
/** `custom_fields` and the status fields after it: also the event's row alone. */
const tailText = (ctx: Context, e: EventRecord) =>
  `"custom_fields":${JSON.stringify(customFieldsJson(ctx, e))},${members(eventStatusFields(e))}`
const venueText = (ctx: Context, v: VenueRecord, single: boolean) => open(venueOwn(ctx, v, single))
const organizerText = (ctx: Context, o: OrganizerRecord, single: boolean) => open(organizerOwn(ctx, o, single))
const termText = (ctx: Context, t: TermWithCount) => JSON.stringify(embeddedTerm(ctx, t))

/**
 * Whether the record carries a revision to key it by. A host's own Storage that does not keep
 * one (the contract tests require it) gets its records written afresh, never a stale text.
 */
const versioned = (rec: PostRecord) => Number.isSafeInteger(rec.revision)

/** Writes one request's records; null when the router's fragment cache is off. */
export function postWriter(ctx: Context): PostWriter | null {
  return ctx.fragments ? new PostWriter(ctx, ctx.fragments) : null
}

export class PostWriter {
  /**
   * Every request input the cached text uses: the link roots (origin or baseUrl, language path
   * segment, language query). The permalink hook and the site's zone are the router's own.
   */
  private readonly variant: string
  /** Terms are written once per request: several events of a page often share them. */
  private readonly terms = new Map<number, string>()

  constructor(
    private readonly ctx: Context,
    private readonly cache: FragmentCache,
  ) {
    this.variant = cache.variant(`${ctx.restRoot}|${ctx.base}|${ctx.names.languageParam}=${ctx.languageQuery ?? ''}`)
  }

  /** The event with the embeds `rel` holds for this caller, then `extra` (series fields). */
  event(e: EventRecord, rel: Relations, single: boolean, extra: Json | null): RawJson {
    const { ctx, cache } = this
    const venues = eventVenues(e, rel)
    const organizers = eventOrganizers(e, rel)
    let text = this.own(e, 'e', headText)
    text += `,"categories":${this.termList(e.categoryIds, rel)},"tags":${this.termList(e.tagIds, rel)},"venue":`
    if (venues.length === 1) text += this.venue(venues[0] as VenueRecord, rel, single)
    else text += `[${venues.map((v) => this.venue(v, rel, single)).join(',')}]`
    text += `,"organizer":[${organizers.map((o) => this.organizer(o, rel, single)).join(',')}],`
    text += `${this.own(e, 'c', tailText)},${this.language(e, rel)}`
    if (single && e.status === 'publish') {
      const v = venues[0]
      const o = organizers[0]
      // The first venue and organizer this caller sees are part of the key, at their versions.
      const key = `j${e.id}:${e.revision}:${v ? `${v.id}.${v.revision}` : '-'}:${o ? `${o.id}.${o.revision}` : '-'}${this.variant}`
      const build = () => JSON.stringify(eventJsonLd(ctx, e, v, o))
      text += `,"json_ld":${[e, v, o].every((r) => !r || versioned(r)) ? cache.text(key, build) : build()}`
    }
    if (extra) text += `,${members(extra)}`
    return new RawJson(`${text}}`)
  }

  /** A venue or organizer on its own (its endpoints). */
  linked(rec: VenueRecord | OrganizerRecord, rel: Relations, single: boolean): RawJson {
    return new RawJson(rec.type === 'venue' ? this.venue(rec, rel, single) : this.organizer(rec, rel, single))
  }

  /**
   * A record's own text, cached under its version (`kind` tells the shapes of one record apart).
   * `build` is a function of its arguments, not a closure: a page asks for dozens of texts.
   */
  private own<R extends PostRecord>(
    rec: R,
    kind: string,
    build: (ctx: Context, rec: R, single: boolean) => string,
    single = false,
  ): string {
    const { ctx } = this
    return versioned(rec)
      ? this.cache.text(`${kind}${rec.id}:${rec.revision}${this.variant}`, build, ctx, rec, single)
      : build(ctx, rec, single)
  }

  private venue(v: VenueRecord, rel: Relations, single: boolean): string {
    return `${this.own(v, single ? 'V' : 'v', venueText, single)},${this.language(v, rel)}}`
  }

  private organizer(o: OrganizerRecord, rel: Relations, single: boolean): string {
    return `${this.own(o, single ? 'O' : 'o', organizerText, single)},${this.language(o, rel)}}`
  }

  private termList(ids: number[], rel: Relations): string {
    const texts = sortedTerms(ids, rel).map((t) => {
      let text = this.terms.get(t.id)
      if (text === undefined) {
        // Terms have no revision and a live count: the key holds every field the text shows
        // (the strings length-prefixed, so no two terms can spell the same key). Long as it is,
        // looking it up costs less than building the term's links again.
        const key = `t${t.id}:${t.count}:${t.parent}:${t.taxonomy}:${t.name.length}:${t.name}${t.slug.length}:${t.slug}${t.description.length}:${t.description}${this.variant}`
        text = this.cache.text(key, termText, this.ctx, t)
        this.terms.set(t.id, text)
      }
      return text
    })
    return `[${texts.join(',')}]`
  }

  /** `"language":…,"translations":{…}`, as languageFields has them, without an object to stringify when alone. */
  private language(post: PostRecord, rel: Relations): string {
    const { language, translations } = languageFields(this.ctx, post, rel) as { language: string; translations: Json }
    if (Object.keys(translations).length > 0) return members({ language, translations })
    return `"language":${JSON.stringify(language)},"translations":{}`
  }
}
