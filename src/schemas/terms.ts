/** Category and tag operations' parameters (docs/wire-compatibility.md §7.6, §7.7). */
import * as v from 'valibot'
import * as p from './primitives.js'
import { requiredIf, type ParamDefs } from './operation.js'
import type { SchemaConfig } from './common.js'
import { idParam, languageParam, pageParam, perPageParam, syncTokenParam } from './common.js'

export function termListParams(c: SchemaConfig, hierarchical: boolean) {
  return {
    page: pageParam,
    per_page: perPageParam(c.perPage),
    search: {
      schema: v.pipe(p.nonEmptyString(), v.maxLength(200, p.INVALID)),
      description: 'Terms whose name or slug contains the string.',
      in: 'query',
    },
    exclude: { schema: p.termRefList(), description: 'Leave out these term IDs or slugs.', in: 'query' },
    include: { schema: p.termRefList(), description: 'Only these term IDs or slugs.', in: 'query' },
    order: {
      schema: v.pipe(p.nonEmptyString(), v.maxLength(20, p.INVALID)),
      description: '`asc` for ascending; any other value sorts descending.',
      in: 'query',
    },
    orderby: {
      schema: v.pipe(p.nonEmptyString(), v.maxLength(40, p.INVALID)),
      description: 'Sort by id, name, slug, count, description, parent, include or none (default name).',
      in: 'query',
    },
    hide_empty: { schema: p.boolean(), default: '1', description: 'Hide terms no published event uses.', in: 'query' },
    ...(hierarchical
      ? { parent: { schema: p.integer(), description: 'Only direct children of this category ID.', in: 'query' as const } }
      : {}),
    post: { schema: p.positiveInt(), description: 'Only terms assigned to this event ID.', in: 'query' },
    event: { schema: p.positiveInt(), description: 'Alias of post; wins when both are given.', in: 'query' },
    slug: { schema: v.pipe(p.nonEmptyString(), v.maxLength(400, p.INVALID)), description: 'Only the term with this slug.', in: 'query' },
    sync_token: syncTokenParam,
    multilingual_language: languageParam(c.languages),
  } satisfies ParamDefs
}

export function termWriteParams<C extends boolean>(c: SchemaConfig, create: C, hierarchical: boolean) {
  return {
    name: { schema: v.pipe(p.nonEmptyString(), v.maxLength(200, p.INVALID)), ...requiredIf(create), description: 'The term name.' },
    description: { schema: v.nullable(p.text()), description: 'The term description.' },
    slug: { schema: v.pipe(p.nonEmptyString(), v.maxLength(200, p.INVALID)), description: 'The term slug (default: from the name).' },
    // Tags accept `parent` only to answer rest_taxonomy_not_hierarchical, as WordPress does.
    parent: { schema: p.integer(), description: hierarchical ? 'The parent category ID (0 for none).' : 'Not supported: tags are flat.' },
    ...(create
      ? { translation_of: { schema: p.positiveInt(), description: 'Create the term as a translation of this term.', in: 'body' as const } }
      : {}),
    multilingual_language: languageParam(c.languages),
  } satisfies ParamDefs
}

export function termIdParams(c: SchemaConfig) {
  return { id: idParam('term'), multilingual_language: languageParam(c.languages) } satisfies ParamDefs
}
