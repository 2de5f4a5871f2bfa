/**
 * Slugs: lower-case letters and digits of any script joined by hyphens, unique per kind and
 * language. Latin letters are spelled out as WordPress's accent removal does (é → e, Ł → l,
 * Æ → ae, with German, Danish, Catalan and Serbian rules for records in those languages);
 * other scripts keep their letters (percent-encoded only in URLs) instead of WordPress's raw
 * `%e3%83%...` byte slugs.
 */
import type { PostType, StorageReader, Taxonomy } from '../storage/types.js'
import { SlugConflictError } from '../storage/types.js'

const MAX = 190

/**
 * WordPress's spellings for Latin letters that Unicode does not decompose into a base letter
 * and a mark (those lose their marks below), plus its few symbols. Keys are lower case: the
 * text is lower-cased first. One deliberate change: ß is "ss" in every language (WordPress
 * writes "s" outside German sites, a misspelling).
 */
const LATIN: Readonly<Record<string, string>> = {
  æ: 'ae',
  ð: 'd',
  ø: 'o',
  þ: 'th',
  ß: 'ss',
  đ: 'd',
  ħ: 'h',
  ı: 'i',
  ĸ: 'k',
  ŀ: 'l',
  ł: 'l',
  ŉ: 'n',
  ŋ: 'n',
  œ: 'oe',
  ŧ: 't',
  ſ: 's',
  ə: 'e',
  ǝ: 'e',
  ɑ: 'a',
  '€': 'e',
  '£': '',
  '×': 'x',
}

/** WordPress's locale rules, here chosen by the record's language. */
const BY_LANGUAGE: ReadonlyArray<readonly [RegExp, Readonly<Record<string, string>>]> = [
  [/^de(?:$|[-_])/, { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss' }],
  [/^da(?:$|[-_])/, { æ: 'ae', ø: 'oe', å: 'aa' }],
  [/^ca(?:$|[-_])/, { 'l·l': 'll' }],
  [/^(?:sr|bs)(?:$|[-_])/, { đ: 'dj' }],
]

// eslint-disable-next-line no-control-regex -- the range is every non-ASCII character, on purpose
const SPELLED = /l·l|[^\u0000-\u007f]/g

function spellOutLatin(text: string, language: string): string {
  const local = BY_LANGUAGE.find(([pattern]) => pattern.test(language.toLowerCase()))?.[1]
  return text.replace(SPELLED, (ch) => local?.[ch] ?? LATIN[ch] ?? ch)
}

/** `language` picks WordPress's locale rules (German ä → ae); omitted, the general ones. */
export function sanitizeSlug(input: string, language = ''): string {
  // As WordPress: tags go, and character references go whole (not their letters: `&amp;` is
  // not "amp", `&#8217;` not "8217"). Titles arrive as stored HTML, so both occur.
  // Script and style contents are not words of the title (the HTML filter drops them from an
  // author's title before it is stored; the slug is made from the title as sent).
  const text = input
    .replace(/<(script|style)\b[^>]*>[\s\S]*?(<\/\1\s*>|$)/gi, '')
    .replace(/<[^>]*>/g, '')
    .replace(/&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/gi, '')
  return (
    spellOutLatin(text.normalize('NFC').toLowerCase(), language)
      .normalize('NFKD')
      // Only Latin-style accents go (é → e); marks that are part of other scripts'
      // letters (Japanese dakuten, Indic vowel signs) stay, recomposed below.
      .replace(/[\u0300-\u036f]+/g, '')
      .normalize('NFC')
      .replace(/[\s/\\.·・–—]+/gu, '-')
      .replace(/[^\p{L}\p{M}\p{N}_-]+/gu, '')
      .replace(/-{2,}/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, MAX)
      .replace(/-+$/, '')
  )
}

/** The first free slug among `base`, `base-2`, `base-3`, ... */
export async function freeSlug(reader: StorageReader, kind: PostType | Taxonomy, language: string, base: string): Promise<string> {
  const taken = new Set(await reader.slugsLike(kind, language, base))
  if (!taken.has(base)) return base
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`
}

/**
 * Runs an insert with a free slug, retrying when a concurrent writer took it first (the
 * backend's unique constraint is the arbiter, not the look-up).
 */
export async function withFreeSlug<T>(
  reader: StorageReader,
  kind: PostType | Taxonomy,
  language: string,
  base: string,
  insert: (slug: string) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const slug = await freeSlug(reader, kind, language, base)
    try {
      return await insert(slug)
    } catch (e) {
      if (!(e instanceof SlugConflictError) || attempt >= 8) throw e
    }
  }
}
