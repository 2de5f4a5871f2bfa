/**
 * Demo data for a first look: an empty database gets a handful of realistic events (a weekly
 * series, a cancelled and a postponed one, an online and a hybrid one, a two-day festival),
 * venues with coordinates, organizers and categories, dated from today so the calendar opens
 * on them. `CALENDAR_DEMO=off` skips it. Written through the API (a router over the same
 * storage, signed in as an administrator for these requests only), so the records are exactly
 * what a client would have created.
 */
import { createCalendarRouter, type CalendarOptions, type Storage } from '../../src/index.js'

const NS = 'http://localhost/wp-json/calendar/events/v1'

type Call = (method: string, path: string, body?: unknown) => Promise<any>

function caller(router: ReturnType<typeof createCalendarRouter>): Call {
  return async (method, path, body) => {
    const res = await router.fetch(
      new Request(`${NS}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    )
    const json = await res.json()
    if (!res.ok) throw new Error(`demo data: ${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`)
    return json
  }
}

/** Whether the API lists nothing at all: no event in any status or date, no venue, no organizer. */
async function isEmpty(call: Call): Promise<boolean> {
  const events = await call(
    'GET',
    '/events?per_page=1&start_date=1900-01-01&end_date=2999-12-31&status=publish,future,draft,pending,private,trash',
  )
  if (events.total > 0) return false
  const venues = await call('GET', '/venues?per_page=1')
  const organizers = await call('GET', '/organizers?per_page=1')
  return venues.total === 0 && organizers.total === 0
}

/** `YYYY-MM-DD` of today plus `days`, and the weekday counted from it. */
function day(from: Date, days: number): string {
  const d = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate() + days))
  return d.toISOString().slice(0, 10)
}

function nextWeekday(from: Date, weekday: number, atLeast = 1): number {
  for (let i = atLeast; ; i++)
    if (new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate() + i)).getUTCDay() === weekday) return i
}

export async function seedDemoData(storage: Storage, options: CalendarOptions, env: NodeJS.ProcessEnv, now = new Date()): Promise<number> {
  if ((env.CALENDAR_DEMO ?? '').toLowerCase() === 'off') return 0
  const router = createCalendarRouter(storage, {
    ...options,
    cache: false,
    // User 1 is an administrator of the example's token users unless CALENDAR_API_TOKENS says
    // otherwise; the demo records are theirs.
    authenticate: () => ({ id: 1, role: 'administrator' }),
  })
  try {
    const call = caller(router)
    if (!(await isEmpty(call))) return 0
    const zone = 'Europe/London'
    const hall = await call('POST', '/venues', {
      venue: 'Riverside Hall',
      address: '12 Welsh Back',
      city: 'Bristol',
      zip: 'BS1 4SB',
      country: 'United Kingdom',
      geo_lat: 51.4507,
      geo_lng: -2.5921,
      phone: '+44 117 496 0123',
      website: 'https://riverside-hall.example',
      description: '<p>A former grain store on the harbour, with a 200-seat hall and a café.</p>',
    })
    const library = await call('POST', '/venues', {
      venue: 'Old Town Library',
      address: '3 College Green',
      city: 'Bristol',
      zip: 'BS1 5TL',
      country: 'United Kingdom',
      geo_lat: 51.4526,
      geo_lng: -2.6003,
      description: '<p>The central library: reading rooms upstairs, events in the Rotunda.</p>',
    })
    const park = await call('POST', '/venues', {
      venue: 'Harbourside Green',
      address: 'Canons Way',
      city: 'Bristol',
      country: 'United Kingdom',
      geo_lat: 51.4492,
      geo_lng: -2.5996,
    })
    const jazz = await call('POST', '/organizers', {
      organizer: 'Harbour Jazz Collective',
      email: 'hello@harbour-jazz.example',
      website: 'https://harbour-jazz.example',
      description: '<p>Musicians who have played the harbour every Thursday since 2009.</p>',
    })
    const friends = await call('POST', '/organizers', {
      organizer: 'Friends of the Library',
      phone: '+44 117 496 0456',
      email: 'friends@library.example',
    })
    const thursday = nextWeekday(now, 4)
    const saturday = nextWeekday(now, 6)
    const events = [
      {
        title: 'Thursday Jazz Night',
        description: '<p>Live jazz by the water: a house trio and a guest soloist every week. Doors at 19:00.</p>',
        excerpt: 'Live jazz by the water, every Thursday.',
        start_date: `${day(now, thursday)} 19:30:00`,
        end_date: `${day(now, thursday)} 22:00:00`,
        recurrence: 'FREQ=WEEKLY;COUNT=8',
        venue: hall.id,
        organizer: [jazz.id],
        categories: ['Music'],
        cost: '£8',
      },
      {
        title: 'Repair Café',
        description: '<p>Bring a broken lamp, toaster or jumper; volunteers help you fix it.</p>',
        start_date: `${day(now, saturday)} 10:00:00`,
        end_date: `${day(now, saturday)} 13:00:00`,
        venue: library.id,
        organizer: [friends.id],
        categories: ['Community'],
        cost: 'Free',
        event_status: 'canceled',
        event_status_reason: 'The Rotunda is closed for repairs this week. See you next month!',
      },
      {
        title: 'Open Data for Beginners',
        description:
          '<p>A one-hour introduction to finding and using open data about your city. <strong>Online only</strong>: the link is below.</p>',
        start_date: `${day(now, 3)} 18:00:00`,
        end_date: `${day(now, 3)} 19:00:00`,
        attendance_mode: 'online',
        virtual_url: 'https://meet.example/open-data-beginners',
        organizer: [friends.id],
        categories: ['Workshops', 'Online'],
        cost: 'Free',
      },
      {
        title: 'Story Time & Crafts',
        description: '<p>Stories for children aged 3–7, then paper crafts. Also streamed for those at home.</p>',
        start_date: `${day(now, saturday + 7)} 10:30:00`,
        end_date: `${day(now, saturday + 7)} 11:30:00`,
        attendance_mode: 'mixed',
        virtual_url: 'https://meet.example/story-time',
        venue: library.id,
        organizer: [friends.id],
        categories: ['Community', 'Workshops'],
        cost: 'Free',
      },
      {
        title: 'Poetry & Pints',
        description: '<p>Open mic for poets: five minutes each, sign up at the door.</p>',
        start_date: `${day(now, 12)} 20:00:00`,
        end_date: `${day(now, 12)} 22:30:00`,
        venue: hall.id,
        categories: ['Community'],
        cost: '£3',
        event_status: 'postponed',
        event_status_reason: 'Moved to a later date; tickets stay valid.',
      },
      {
        title: 'Harbour Festival',
        description:
          '<p>Two days of boats, bands and street food along the harbour.</p><ul><li>Tall ships open to visitors</li><li>Three music stages</li></ul>',
        start_date: `${day(now, saturday + 14)} 00:00:00`,
        end_date: `${day(now, saturday + 15)} 23:59:59`,
        all_day: true,
        venue: park.id,
        organizer: [jazz.id],
        categories: ['Music', 'Community'],
        cost: 'Free',
      },
    ]
    for (const event of events) await call('POST', '/events', { timezone: zone, status: 'publish', ...event })
    return events.length
  } finally {
    router.close()
  }
}
