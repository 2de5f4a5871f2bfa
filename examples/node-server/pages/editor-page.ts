/**
 * `/editor/`: find, create, edit and trash events through the API, in the browser
 * (static/editor.js sends the token the server printed as a bearer token). The page has the
 * searchable list of events (drafts included for editors), the form with one error slot per
 * field (the API's 400 answers, `data.params` and `data.details`, are shown next to the field
 * they name), venues and organizers picked or created inline (name, address or contact
 * details), and categories and tags picked from the existing terms (a new one is added
 * explicitly). The script checks only what it can say better than the API (an end before the
 * start, a web address without its scheme, an email address without its @); the API's rules
 * are the rules, and its refusals are shown next to the field they name.
 */
import type { CalendarOptions } from '../../../src/index.js'
import { html, plainText, type SafeHtml } from './html.js'
import { renderPage } from './layout.js'
import { API_PATH, TOKEN_COOKIE, type VisitorApi } from './visitor-api.js'

interface Named {
  id: number
  venue?: string
  organizer?: string
}

interface Term {
  id: number
  name: string
}

/**
 * Existing terms as checkboxes, and a text box with an "Add" button for a new one: a typo no
 * longer creates "Workshop" beside "Workshops" unnoticed.
 */
function termPicker(name: 'categories' | 'tags', legend: string, singular: string, terms: Term[]): SafeHtml {
  return html`<fieldset class="field terms" data-field="${name}" id="field-${name}" aria-describedby="error-${name}">
    <legend>${legend}</legend>
    <ul class="term-choices" id="choices-${name}">
      ${terms.map(
        (t) =>
          html`<li>
            <input type="checkbox" id="term-${name}-${String(t.id)}" name="${name}" value="${plainText(t.name)}" /><label
              for="term-${name}-${String(t.id)}"
              >${plainText(t.name)}</label
            >
          </li>`,
      )}
    </ul>
    <div class="term-new">
      <label for="new-${name}">New ${singular}</label>
      <input id="new-${name}" type="text" autocomplete="off" />
      <button type="button" class="button secondary" data-add-term="${name}">Add ${singular}</button>
    </div>
    <p class="field-error" id="error-${name}" hidden></p>
  </fieldset>`
}

/**
 * What a venue or organizer created inline asks for besides its name: the API's field, its
 * label (named after the record, so that "Venue website" is never taken for the event's), the
 * input type (the right keyboard on a phone; the script checks the syntax, the form is
 * novalidate). No autocomplete: the browser's suggestions would be the visitor's own address.
 */
const LINKED_DETAILS: Record<'venue' | 'organizer', Array<[string, string, string]>> = {
  venue: [
    ['address', 'Venue address', 'text'],
    ['city', 'Venue city', 'text'],
    ['country', 'Venue country', 'text'],
    ['zip', 'Venue postal code', 'text'],
    ['website', 'Venue website', 'url'],
  ],
  organizer: [
    ['email', 'Organizer email', 'email'],
    ['phone', 'Organizer phone', 'tel'],
    ['website', 'Organizer website', 'url'],
  ],
}

/** One detail of a new venue or organizer: `new_<kind>_<field>`, with its error slot. */
function linkedDetail(kind: 'venue' | 'organizer', [key, label, type]: [string, string, string]): SafeHtml {
  const name = `new_${kind}_${key}`
  return html`<div class="field" data-field="${name}">
    <label for="field-${name}">${label}</label>
    <input id="field-${name}" name="${name}" type="${type}" autocomplete="off" aria-describedby="error-${name}" />
    <p class="field-error" id="error-${name}" hidden></p>
  </div>`
}

/**
 * A select of the existing records with "New …" at the end, and the fields it reveals: the new
 * record's name and details, created through the API on save.
 */
function linkedPicker(name: 'venue' | 'organizer', label: string, options: Array<[string, string]>): SafeHtml {
  return html`${field(name, label, select(name, [...options, ['new', `New ${name}…`]]))}
    <fieldset class="new-linked" id="new-${name}-field" hidden>
      <legend>New ${name}</legend>
      <div class="field" data-field="new_${name}">
        <label for="field-new_${name}">New ${name}'s name</label>
        <input id="field-new_${name}" name="new_${name}" type="text" autocomplete="off" aria-describedby="error-new_${name}" />
        <p class="field-error" id="error-new_${name}" hidden></p>
      </div>
      ${LINKED_DETAILS[name].map((detail) => linkedDetail(name, detail))}
    </fieldset>`
}

function eventBrowser(): SafeHtml {
  return html`<section id="event-browser" aria-labelledby="list-heading">
    <h2 id="list-heading">Events</h2>
    <div class="field">
      <label for="event-search">Search events</label>
      <input id="event-search" type="search" autocomplete="off" aria-describedby="event-list-status" />
    </div>
    <p class="meta" id="event-list-status" role="status" aria-live="polite"></p>
    <ul id="event-list" class="event-admin-list"></ul>
  </section>`
}

/** A labelled control with its hint and its error slot, tied together for screen readers. */
function field(name: string, label: string, control: SafeHtml, hint?: string): SafeHtml {
  return html`<div class="field" data-field="${name}">
    <label for="field-${name}">${label}</label>
    ${hint ? html`<p class="hint" id="hint-${name}">${hint}</p>` : ''} ${control}
    <p class="field-error" id="error-${name}" hidden></p>
  </div>`
}

const described = (name: string, hint: boolean) => (hint ? `hint-${name} error-${name}` : `error-${name}`)

function input(name: string, type: string, extra: SafeHtml | string = '', hint = false): SafeHtml {
  return html`<input id="field-${name}" name="${name}" type="${type}" aria-describedby="${described(name, hint)}" ${extra} />`
}

function select(name: string, options: Array<[string, string]>, hint = false): SafeHtml {
  return html`<select id="field-${name}" name="${name}" aria-describedby="${described(name, hint)}">
    ${options.map(([value, label]) => html`<option value="${value}">${label}</option>`)}
  </select>`
}

/** `£12` or `12 €`: how a plain number typed as cost reads on this site. */
function costExample(currency: CalendarOptions['currency']): string {
  const symbol = currency?.symbol ?? '$'
  return currency?.position === 'postfix' ? `12${symbol}` : `${symbol}12`
}

export async function editorPage(api: VisitorApi, siteTimezone: string, currency?: CalendarOptions['currency']): Promise<Response> {
  const [venues, organizers, categories, tags] = await Promise.all([
    api.get<{ venues: Named[] }>('/venues', { per_page: 100 }),
    api.get<{ organizers: Named[] }>('/organizers', { per_page: 100 }),
    api.get<{ categories: Term[] }>('/categories', { per_page: 100, hide_empty: 'false' }),
    api.get<{ tags: Term[] }>('/tags', { per_page: 100, hide_empty: 'false' }),
  ])
  const venueOptions: Array<[string, string]> = [
    ['', 'No venue'],
    ...(venues.status === 200 ? venues.body.venues : []).map((v): [string, string] => [String(v.id), plainText(v.venue ?? '')]),
  ]
  const organizerOptions: Array<[string, string]> = [
    ['', 'No organizer'],
    ...(organizers.status === 200 ? organizers.body.organizers : []).map((o): [string, string] => [
      String(o.id),
      plainText(o.organizer ?? ''),
    ]),
  ]
  const zones = Intl.supportedValuesOf('timeZone')
  if (!zones.includes(siteTimezone)) zones.unshift(siteTimezone)
  const body = html`<h1 id="editor-heading">Editor</h1>
    <div id="editor" data-api="${API_PATH}" data-cookie="${TOKEN_COOKIE}" data-timezone="${siteTimezone}">
      <section id="sign-in" aria-labelledby="sign-in-heading">
        <h2 id="sign-in-heading">Sign in</h2>
        <p>
          Paste the API token the server printed when it started (or one of <code>CALENDAR_API_TOKENS</code>). It stays in this browser tab
          only.
        </p>
        <form id="sign-in-form" novalidate>
          ${field('token', 'API token', input('token', 'password', html`autocomplete="off" spellcheck="false" required`))}
          <button type="submit" class="button">Sign in</button>
        </form>
      </section>
      <div id="signed-in" hidden>
        ${eventBrowser()}
        <section id="event-editor" aria-labelledby="form-heading">
          <div class="editor-bar">
            <h2 id="form-heading">New event</h2>
            <button type="button" id="sign-out" class="button secondary">Sign out</button>
          </div>
          <div id="form-status" role="status" aria-live="polite"></div>
          <form id="event-form" novalidate>
            ${field('title', 'Title', input('title', 'text', html`required`))}
            ${field('start_date', 'Starts', input('start_date', 'datetime-local', html`required`))}
            ${field('end_date', 'Ends', input('end_date', 'datetime-local', html`required`))}
            <div class="field check" data-field="all_day">
              <input id="field-all_day" name="all_day" type="checkbox" aria-describedby="error-all_day" /><label for="field-all_day"
                >All-day event</label
              >
              <p class="field-error" id="error-all_day" hidden></p>
            </div>
            ${field(
              'timezone',
              'Time zone',
              select(
                'timezone',
                zones.map((z): [string, string] => [z, z]),
              ),
              'The dates above are read on this clock.',
            )}
            ${field(
              'status',
              'Visibility',
              select('status', [
                ['publish', 'Published'],
                ['draft', 'Draft (only editors see it)'],
              ]),
            )}
            ${field(
              'event_status',
              'Status',
              select('event_status', [
                ['scheduled', 'Scheduled'],
                ['postponed', 'Postponed'],
                ['canceled', 'Cancelled'],
              ]),
            )}
            ${field('event_status_reason', 'Reason for the status', input('event_status_reason', 'text'))}
            ${field(
              'attendance_mode',
              'Attendance',
              select('attendance_mode', [
                ['offline', 'In person'],
                ['online', 'Online'],
                ['mixed', 'In person and online'],
              ]),
            )}
            ${field('virtual_url', 'Online link', input('virtual_url', 'url', '', true), 'Where online attendees join (https://…).')}
            ${linkedPicker('venue', 'Venue', venueOptions)} ${linkedPicker('organizer', 'Organizer', organizerOptions)}
            ${termPicker('categories', 'Categories', 'category', categories.status === 200 ? categories.body.categories : [])}
            ${termPicker('tags', 'Tags', 'tag', tags.status === 200 ? tags.body.tags : [])}
            ${field('cost', 'Cost', input('cost', 'text', '', true), `For example 12 (shown as ${costExample(currency)}), 5–15, or Free; a symbol typed with the number is kept.`)}
            ${field('website', 'Event website', input('website', 'url'))}
            ${field('description', 'Description', html`<textarea id="field-description" name="description" rows="6" aria-describedby="error-description"></textarea>`)}
            <div class="actions">
              <button type="submit" class="button" id="save">Create event</button> <a href="/editor/" class="button secondary">New event</a>
            </div>
          </form>
        </section>
      </div>
    </div>
    <noscript><p>The editor needs JavaScript: it talks to the API from your browser.</p></noscript>`
  return renderPage({
    title: 'Editor',
    current: 'editor',
    scripts: ['/assets/editor.js'],
    body,
  })
}
