/**
 * Custom field values on their way from a validated write to storage: the caller's HTML filter
 * applied per declaration (a textarea as rich text like a description, a text as one line like
 * a title; URLs, emails, dates, numbers, choices and checkboxes have a fixed syntax already
 * checked), then merged into what the record holds.
 */
import type { Context } from '../context.js'
import { fieldsFor } from '../custom-fields/declarations.js'
import { mergeValues, paramName } from '../custom-fields/values.js'
import type { CustomValue, CustomValues, PostType } from '../storage/types.js'

type Sent = Readonly<Record<string, CustomValue | null>>

/** The sent values with the caller's HTML filter applied to text and textarea fields. */
function filtered(ctx: Context, kind: PostType, sent: Sent): Sent {
  const filter = ctx.options.sanitize(ctx.principal)
  if (!filter) return sent
  const types = new Map(fieldsFor(ctx.options.customFields, kind).map((f) => [f.key, f.type]))
  const out: Record<string, CustomValue | null> = {}
  for (const [key, value] of Object.entries(sent)) {
    const type = types.get(key)
    const html = type === 'textarea' ? 'rich' : type === 'text' ? 'inline' : null
    out[key] = html && typeof value === 'string' ? filter(value, { resource: kind, field: paramName(key), kind: html }) : value
  }
  return out
}

/**
 * A new record's values: what the create sent (validated by the schema), filtered.
 *
 * @example createdValues(ctx, 'event', input.custom_fields) // { ticket_url: 'https://…' }
 */
export function createdValues(ctx: Context, kind: PostType, sent: Sent | undefined): CustomValues {
  return mergeValues({}, filtered(ctx, kind, sent ?? {}))
}

/**
 * An update's values, or undefined when it sent none: the record's, with the keys sent set or
 * cleared (null) and every other key, declared or not, kept.
 *
 * @example patchedValues(ctx, 'event', current.customFields, { capacity: null })
 */
export function patchedValues(
  ctx: Context,
  kind: PostType,
  stored: CustomValues | undefined,
  sent: Sent | undefined,
): CustomValues | undefined {
  if (sent === undefined) return undefined
  return mergeValues(stored, filtered(ctx, kind, sent))
}
