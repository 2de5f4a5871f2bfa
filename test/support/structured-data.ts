/**
 * schema.org checks of JSON-LD with @adobe/structured-data-validator: every `@type` must be a
 * schema.org type and every property one that type (or a parent) has, plus Google's rich-result
 * rules for the types it knows (Offer, Person, Organization...). Errors and warnings both count.
 */
// @ts-expect-error The package ships JavaScript without type declarations.
import Validator from '@adobe/structured-data-validator'
import { schemaOrgVocabulary } from './schemaorg-vocabulary.js'

export interface StructuredDataIssue {
  issueMessage: string
  severity: 'ERROR' | 'WARNING'
  path?: unknown
  fieldNames?: string[]
}

/**
 * The validator's issues with one JSON-LD object (an empty list when it is valid).
 *
 * @example
 * expect(await structuredDataIssues(event.json_ld)).toEqual([])
 */
export async function structuredDataIssues(jsonLd: Record<string, unknown>): Promise<StructuredDataIssue[]> {
  const validator = new Validator(schemaOrgVocabulary()) as { validate(data: unknown): Promise<StructuredDataIssue[]> }
  const type = String(jsonLd['@type'])
  // The validator takes what an HTML extractor finds (items by root type) and edits the items.
  const issues = await validator.validate({ jsonld: { [type]: [structuredClone(jsonLd)] } })
  return issues.map(({ issueMessage, severity, path, fieldNames }) => ({ issueMessage, severity, path, fieldNames }))
}
