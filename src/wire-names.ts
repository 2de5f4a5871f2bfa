/**
 * The names a client sees on the wire: the namespace in every URL and the query parameter that
 * picks the request's language. The router serves its own names and, with the `tecNames`
 * option, The Events Calendar's as well, so that a client written for a TEC site only needs its
 * base URL changed. Everything else (routes, shapes, codes) is the same under both.
 */

export interface WireNames {
  /** `calendar/events/v1`: the path below the prefix, and the `namespace` of discovery. */
  readonly namespace: string
  /** `multilingual_language`: the parameter that names the request's language. */
  readonly languageParam: string
}

/** This library's own names (docs/wire-compatibility.md §1.1). */
export const OWN_NAMES: WireNames = Object.freeze({ namespace: 'calendar/events/v1', languageParam: 'multilingual_language' })

/**
 * TEC's names: its REST namespace, and the parameter WPML adds to every TEC route
 * (docs/wire-compatibility.md §8).
 */
export const TEC_NAMES: WireNames = Object.freeze({ namespace: 'tribe/events/v1', languageParam: 'wpml_language' })
