/**
 * Slugs: lower-case letters and digits of any script joined by hyphens, unique per kind and
 * language. Non-Latin titles keep their letters (percent-encoded only in URLs) instead of
 * WordPress's raw `%e3%83%...` byte slugs.
 */
import type { PostType, StorageReader, Taxonomy } from '../storage/types.js'
import { SlugConflictError } from '../storage/types.js'

const MAX = 190

export function sanitizeSlug(input: string): string {
  return input
    .normalize('NFKD')
    // Only Latin-style accents go (é → e); marks that are part of other scripts'
    // letters (Japanese dakuten, Indic vowel signs) stay, recomposed below.
    .replace(/[\u0300-\u036f]+/g, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\s/\\.·・–—]+/gu, '-')
    .replace(/[^\p{L}\p{M}\p{N}_-]+/gu, '')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX)
    .replace(/-+$/, '')
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
