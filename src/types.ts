/**
 * TypeScript types of every representation the namespace answers, inferred from the valibot
 * schemas that /doc publishes, so the two cannot drift apart.
 */
import type * as v from 'valibot'
import type { representations } from './schemas/responses.js'

type Shapes = typeof representations

/** Every representation by its /doc component name (`Representations['Event']`). */
export type Representations = { [K in keyof Shapes]: v.InferOutput<Shapes[K]> }

export type Event = Representations['Event']
export type Venue = Representations['Venue']
export type Organizer = Representations['Organizer']
/** A category or tag as `/categories` and `/tags` answer it. */
export type Term = Representations['Term']
/** A category or tag as embedded in an event. */
export type EmbeddedTerm = Representations['EmbeddedTerm']
export type EventImage = Representations['Image']
export type DateDetails = Representations['DateDetails']
export type CostDetails = Representations['CostDetails']
export type EventList = Representations['EventList']
export type VenueList = Representations['VenueList']
export type OrganizerList = Representations['OrganizerList']
export type CategoryList = Representations['CategoryList']
export type TagList = Representations['TagList']
/** The WordPress error envelope `{ code, message, data: { status, ... } }` (the `Error` component). */
export type ErrorEnvelope = Representations['Error']
export type NamespaceIndex = Representations['NamespaceIndex']
