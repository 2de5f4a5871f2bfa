/** Pieces shared by every post representation. */
import type { Context } from '../context.js'
import type { ImageRef, PostRecord } from '../storage/types.js'
import type { Relations } from './embedded.js'

export type Json = Record<string, unknown>

/** TEC's image object with what is known, or `false`. */
export function image(img: ImageRef | null): Json | false {
  if (!img) return false
  const out: Json = { url: img.url }
  if (img.id !== undefined) out.id = img.id
  const ext = /\.([a-z0-9]{2,5})(?:$|[?#])/i.exec(new URL(img.url).pathname)?.[1]
  if (ext) out.extension = ext.toLowerCase()
  if (img.width) out.width = img.width
  if (img.height) out.height = img.height
  if (img.filesize) out.filesize = img.filesize
  if (img.mime) out['mime-type'] = img.mime
  return out
}

/** `language` and `translations` (other languages of the same record → their ids). */
export function languageFields(ctx: Context, post: PostRecord, rel: Relations): Json {
  const all = rel.translations.get(post.translationGroup) ?? {}
  const translations: Record<string, number> = {}
  for (const lang of ctx.options.languages) {
    const id = all[lang]
    if (id !== undefined && id !== post.id) translations[lang] = id
  }
  return { language: post.language, translations }
}

/** Drops `""`, `"0"`, `0`, `false`, `null` and `[]` values, as TEC does for venues/organizers. */
export function pruneEmpty(o: Json): Json {
  const out: Json = {}
  for (const [k, v] of Object.entries(o)) {
    if (v === '' || v === '0' || v === 0 || v === false || v === null || v === undefined) continue
    if (Array.isArray(v) && v.length === 0) continue
    out[k] = v
  }
  return out
}
