/**
 * The SQL storage's reads, over whatever connection `use` hands them: the storage's own (the
 * primary), a transaction's, or a request's replica (session.ts).
 */
import type { EventListQuery, EventsShown, LinkedListQuery, PostType, StorageReader, Taxonomy, TermListQuery } from '../types.js'
import type { TranslationKind } from '../types.js'
import type { Db } from './db.js'
import { listEvents } from './event-list.js'
import { eventsShowing } from './events-showing.js'
import * as read from './read.js'

export abstract class Reader implements StorageReader {
  protected abstract use<T>(fn: (db: Db) => Promise<T>): Promise<T>

  getPost(id: number) {
    return this.use((db) => read.getPost(db, id))
  }
  reservedBy(id: number) {
    return this.use((db) => read.reservedBy(db, id))
  }
  getPosts(ids: readonly number[]) {
    return this.use((db) => read.getPosts(db, ids))
  }
  findPostBySlug<T extends PostType>(type: T, language: string, slug: string) {
    return this.use((db) => read.findPostBySlug(db, type, language, slug))
  }
  slugsLike(kind: PostType | Taxonomy, language: string, base: string) {
    return this.use((db) => read.slugsLike(db, kind, language, base))
  }
  listEvents(query: EventListQuery) {
    return this.use((db) => listEvents(db, query))
  }
  eventsShowing(language: string, shown: EventsShown) {
    return this.use((db) => eventsShowing(db, language, shown))
  }
  listLinked<T extends 'venue' | 'organizer'>(type: T, query: LinkedListQuery) {
    return this.use((db) => read.listLinked(db, type, query))
  }
  findLinkedDuplicate<T extends 'venue' | 'organizer'>(type: T, language: string, fields: Partial<Record<string, string>>) {
    return this.use((db) => read.findLinkedDuplicate(db, type, language, fields))
  }
  getTranslations(groups: readonly number[], of: TranslationKind) {
    return this.use((db) => read.getTranslations(db, groups, of))
  }
  getTerm(id: number) {
    return this.use((db) => read.getTerm(db, id))
  }
  getTerms(ids: readonly number[]) {
    return this.use((db) => read.getTerms(db, ids))
  }
  findTerm(taxonomy: Taxonomy, language: string, by: { slug?: string; name?: string; parent?: number }) {
    return this.use((db) => read.findTerm(db, taxonomy, language, by))
  }
  termDescendants(ids: readonly number[]) {
    return this.use((db) => read.termDescendants(db, ids))
  }
  listTerms(query: TermListQuery) {
    return this.use((db) => read.listTerms(db, query))
  }
  trashedPosts(modifiedBeforeUtc: string, limit: number) {
    return this.use((db) => read.trashedPosts(db, modifiedBeforeUtc, limit))
  }
  seriesMembers(seriesId: number) {
    return this.use((db) => read.seriesMembers(db, seriesId))
  }
}
