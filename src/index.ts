/** @module calendar-events-router: a calendar-events REST namespace for any JavaScript host. */
export { createCalendarRouter, type CalendarRouter } from './router.js'
export type {
  CalendarOptions,
  AuthRequest,
  PermalinkKind,
  UserDirectory,
  IcalOptions,
  RecurrenceOptions,
  FragmentCacheOptions,
  GeocodeAddress,
  Geofence,
} from './options.js'
export type { FragmentCacheStats } from './cache/fragment-cache.js'
export type { CustomFieldDeclaration, CustomFieldType } from './custom-fields/declarations.js'
export { ROLES, type Principal, type Role } from './auth/principal.js'
export { ApiError } from './http/errors.js'
export type { CacheOptions, CacheStats } from './cache/response-cache.js'
export { PayloadTooLargeError, type RequestLike, type RawResponse, type HeadersLike } from './http/types.js'
// What an application hands the router; a backend's author finds the whole contract in `calendar-events-router/storage`.
export { StorageUnavailableError, type Storage } from './storage/types.js'
export type {
  Representations,
  Event,
  Venue,
  Organizer,
  Term,
  EmbeddedTerm,
  EventImage,
  DateDetails,
  CostDetails,
  EventList,
  VenueList,
  OrganizerList,
  CategoryList,
  TagList,
  ErrorEnvelope,
  NamespaceIndex,
} from './types.js'
export { filterHtml } from './sanitize/html.js'
export type { HtmlKind } from './sanitize/allowlist.js'
export type { SanitizeOption, RolePolicy, TextField, TextFilter } from './sanitize/policy.js'
// Recurring series: hosts extend open-ended series from a scheduler; the rule tools are public.
export { extendSeries } from './resources/series-horizon.js'
export { parseRule, formatRule, expandRule, describeRule, RuleError, type Rule } from './recurrence/index.js'
