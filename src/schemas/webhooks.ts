/** Webhook endpoint operations' parameters (docs/webhooks.md). Administrators only. */
import * as v from 'valibot'
import * as p from './primitives.js'
import { requiredIf, type ParamDefs } from './operation.js'
import { INVALID } from './failure.js'
import { wire } from './wire.js'
import { pageParam } from './common.js'

const KINDS = ['event', 'venue', 'organizer', 'category', 'tag']
const ACTIONS = ['created', 'updated', 'deleted', '*']

/** `*`, `kind.*` or `kind.created|updated|deleted`. */
export const isEventType = (s: string) => {
  if (s === '*') return true
  const [kind, action, extra] = s.split('.')
  return extra === undefined && KINDS.includes(kind ?? '') && ACTIONS.includes(action ?? '')
}

const eventTypes = () =>
  wire(
    v.pipe(
      v.unknown(),
      v.check((x) => {
        const list = p.splitList(x)
        return list !== null && list.length > 0 && list.length <= 50 && list.every((t) => typeof t === 'string' && isEventType(t))
      }, INVALID),
      v.transform((x) => [...new Set(p.splitList(x) as string[])]),
    ),
    { type: 'array', items: { type: 'string' } },
  )

const httpUrl = () =>
  wire(
    v.pipe(
      p.nonEmptyString(),
      v.check(
        (s) => p.isHttpUrl(s),
        (issue) => (p.hasControl(issue.input) ? p.URL_CONTROL : 'url must be an absolute http or https URL.'),
      ),
      v.transform((s) => p.httpUrlText(s) as string),
    ),
    {
      type: 'string',
      format: 'uri',
    },
  )

const idParam = { schema: p.positiveInt(), required: true as const, description: 'The webhook endpoint ID.', in: 'path' as const }

export function webhookWriteParams<C extends boolean>(create: C) {
  return {
    url: { schema: httpUrl(), ...requiredIf(create), description: 'Where deliveries are POSTed (http or https).' },
    events: {
      schema: eventTypes(),
      description:
        'Event types sent: `*`, `event.*`, `event.created`, `event.updated`, `event.deleted`, and the same for venue, organizer, category, tag.',
    },
    description: { schema: p.text(1000), description: 'A note for administrators.' },
    enabled: { schema: p.boolean(), description: 'Whether deliveries are made (re-enabling clears a disabled reason).' },
    ...(create
      ? {}
      : {
          rotate_secret: {
            schema: p.boolean(),
            description: 'true: a new secret signs from now on; the old one also signs for the overlap (24 h by default).',
          },
        }),
  } satisfies ParamDefs
}

export const webhookParams = {
  webhookList: { page: pageParam },
  webhookCreate: webhookWriteParams(true),
  webhookUpdate: webhookWriteParams(false),
  webhookById: { id: idParam },
  webhookDeliveries: { id: idParam, page: pageParam },
  webhookReplay: {
    id: idParam,
    delivery: { schema: v.pipe(p.nonEmptyString(), v.maxLength(100, INVALID)), description: 'Send this delivery again (its ID).' },
    since: { schema: p.dateInput(), description: 'Send again every delivery made since this time (UTC).' },
  },
} satisfies Record<string, ParamDefs>
