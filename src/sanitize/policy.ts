/**
 * Who gets filtered, and by what: the `sanitize` option resolved into one text filter per
 * caller. By default, as in WordPress, roles with `unfiltered_html` (administrator, editor)
 * store HTML as given and every other role's text goes through the allow-list.
 */
import { canUnfilteredHtml, ROLES, type Principal, type Role } from '../auth/principal.js'
import type { HtmlKind } from './allowlist.js'
import { filterHtml, plainText } from './html.js'

/** The text a filter is asked about. */
export interface TextField {
  /** The record the text belongs to (`term` for categories and tags). */
  resource: 'event' | 'venue' | 'organizer' | 'term'
  /** The stored field: `title`, `description`, `excerpt`, `address`, `name`, `cost`, ... */
  field: string
  /** `inline` for titles, names and one-line fields; `rich` for descriptions and excerpts. */
  kind: HtmlKind
}

/** Returns the text to store in place of `value`. */
export type TextFilter = (value: string, field: TextField) => string

/**
 * What one role's writes go through: `unfiltered` (stored as given), `filtered` (the default
 * allow-list), `plain` (every tag removed, text kept) or a filter of your own.
 */
export type RolePolicy = 'unfiltered' | 'filtered' | 'plain' | TextFilter

/**
 * The `sanitize` option: a policy per role (roles left out keep the default), or one function
 * called for every text field of every write, with the caller.
 */
export type SanitizeOption = Partial<Record<Role, RolePolicy>> | ((value: string, field: TextField, principal: Principal | null) => string)

/** The filter a caller's writes go through; null stores text as given. */
export type SanitizePolicy = (principal: Principal | null) => TextFilter | null

/** The default allow-list filter. */
export const defaultFilter: TextFilter = (value, field) => filterHtml(value, field.kind)

const plainFilter: TextFilter = (value) => plainText(value)

function rolePolicy(name: string, policy: unknown): TextFilter | null {
  if (policy === 'unfiltered') return null
  if (policy === 'filtered') return defaultFilter
  if (policy === 'plain') return plainFilter
  if (typeof policy === 'function') return policy as TextFilter
  throw new TypeError(`calendar-events-router: sanitize.${name} must be 'unfiltered', 'filtered', 'plain' or a function`)
}

export function resolveSanitize(option: SanitizeOption | undefined): SanitizePolicy {
  if (typeof option === 'function') {
    return (principal) => (value, field) => option(value, field, principal)
  }
  if (option !== undefined && (typeof option !== 'object' || option === null)) {
    throw new TypeError('calendar-events-router: sanitize must be an object of role policies or a function')
  }
  const byRole = new Map<Role, TextFilter | null>()
  for (const role of ROLES) byRole.set(role, canUnfilteredHtml({ id: 0, role }) ? null : defaultFilter)
  for (const [role, policy] of Object.entries(option ?? {})) {
    // A misspelt role would silently keep the default: refuse it instead.
    if (!(ROLES as readonly string[]).includes(role)) throw new TypeError(`calendar-events-router: sanitize has an unknown role "${role}"`)
    byRole.set(role as Role, rolePolicy(role, policy))
  }
  // Nobody anonymous writes today; should a route ever allow it, it gets the strictest default.
  return (principal) => (principal && byRole.has(principal.role) ? (byRole.get(principal.role) as TextFilter | null) : defaultFilter)
}
