// The calendar page: FullCalendar's month, week and list views reading the JSON API.
// Each event is shown on its own wall clock (the API's start_date/end_date in the event's time
// zone), as the event pages do, so a 19:00 concert reads 19:00 wherever the visitor is.
;(function () {
  var el = document.getElementById('calendar')
  if (!el || typeof FullCalendar === 'undefined') return
  document.documentElement.classList.add('js')
  var api = el.getAttribute('data-api')
  var status = document.getElementById('calendar-status')
  var category = document.getElementById('filter-category')
  var venue = document.getElementById('filter-venue')
  var narrow = window.matchMedia('(max-width: 40rem)').matches

  // Titles are HTML in the API (WordPress stores `&amp;`): FullCalendar wants text. Tags are
  // dropped as text and entities decoded by a textarea, which never parses markup into
  // elements, so nothing in a title can load or run (the pages' plainText does the same).
  var decoder = document.createElement('textarea')
  function text(html) {
    decoder.innerHTML = String(html).replace(/<[^>]*>?/g, '')
    return decoder.value.trim()
  }
  function wall(s) {
    return s.replace(' ', 'T')
  }
  function dayAfter(date) {
    var d = new Date(date + 'T00:00:00Z')
    d.setUTCDate(d.getUTCDate() + 1)
    return d.toISOString().slice(0, 10)
  }
  function apiDate(d) {
    return d.toISOString().slice(0, 19).replace('T', ' ')
  }
  function say(message) {
    if (status) status.textContent = message
  }

  function toEvent(e) {
    var cancelled = e.event_status === 'canceled'
    var prefix = cancelled ? 'Cancelled: ' : e.event_status === 'postponed' ? 'Postponed: ' : ''
    var out = {
      id: String(e.id),
      title: prefix + text(e.title),
      url: new URL(e.url, location.href).pathname + new URL(e.url, location.href).search,
      classNames: cancelled ? ['is-cancelled'] : [],
    }
    if (e.all_day) {
      out.allDay = true
      out.start = e.start_date.slice(0, 10)
      out.end = dayAfter(e.end_date.slice(0, 10))
    } else {
      out.start = wall(e.start_date)
      out.end = wall(e.end_date)
    }
    return out
  }

  // Every page of the visible range (the API pages at 50 here).
  function load(info, success, failure) {
    var params = new URLSearchParams({
      start_date: apiDate(info.start),
      end_date: apiDate(new Date(info.end.getTime() - 1000)),
      per_page: '50',
    })
    if (category && category.value) params.set('categories', category.value)
    if (venue && venue.value) params.set('venue', venue.value)
    // Filters from links (a tag, an organizer) that have no control on the page.
    new URLSearchParams(el.getAttribute('data-extra') || '').forEach(function (value, key) {
      params.set(key, value)
    })
    var events = []
    function page(n) {
      params.set('page', String(n))
      return fetch(api + '/events?' + params, { headers: { Accept: 'application/json' } })
        .then(function (res) {
          // Past the last page the API answers 404 with an empty archive: nothing more.
          if (res.status === 404 && n > 1) return null
          if (!res.ok) throw new Error('The events could not be loaded (HTTP ' + res.status + ').')
          return res.json()
        })
        .then(function (body) {
          if (!body) return events
          events = events.concat(body.events.map(toEvent))
          return n < (body.total_pages || 1) ? page(n + 1) : events
        })
    }
    page(1).then(
      function (all) {
        say(all.length === 1 ? '1 event shown.' : all.length + ' events shown.')
        success(all)
      },
      function (error) {
        say(error.message)
        failure(error)
      },
    )
  }

  var initialView = el.getAttribute('data-view') || (narrow ? 'listMonth' : 'dayGridMonth')
  var calendar = new FullCalendar.Calendar(el, {
    initialView: initialView,
    initialDate: el.getAttribute('data-date') || undefined,
    // Wall-clock times as given: no conversion to the visitor's zone.
    timeZone: 'UTC',
    firstDay: 1,
    height: 'auto',
    nowIndicator: false,
    headerToolbar: narrow
      ? { left: 'prev,today,next', center: 'title', right: 'dayGridMonth,timeGridWeek,listMonth' }
      : { left: 'prev,next today', center: 'title', right: 'dayGridMonth,timeGridWeek,listMonth' },
    buttonText: { today: 'Today', month: 'Month', week: 'Week', list: 'List' },
    buttonHints: { prev: 'Previous $0', next: 'Next $0', today: 'This $0' },
    eventTimeFormat: { hour: '2-digit', minute: '2-digit', hour12: false },
    // On a phone the list shows start times only: the column stays one line wide.
    views: { listMonth: { displayEventEnd: !narrow } },
    slotLabelFormat: { hour: '2-digit', minute: '2-digit', hour12: false },
    events: load,
    // A day cell is named by its date link; with events in it the visible text is more than
    // that name (axe: label-content-name-mismatch), so the cell is named by its content.
    dayCellDidMount: function (arg) {
      arg.el.removeAttribute('aria-labelledby')
    },
    datesSet: function (info) {
      // The toolbar's chevrons are drawn by an icon font with role=img and no text: the buttons
      // carry the names ("Next month"), the icons are decoration.
      setTimeout(function () {
        el.querySelectorAll('.fc-icon').forEach(function (icon) {
          icon.setAttribute('aria-hidden', 'true')
        })
      }, 0)
      // Keep the address shareable: the view and the month shown.
      var url = new URL(location.href)
      url.searchParams.set('view', info.view.type)
      url.searchParams.set('date', info.view.currentStart.toISOString().slice(0, 10))
      history.replaceState(null, '', url)
    },
  })
  calendar.render()

  function refilter() {
    var url = new URL(location.href)
    ;[
      ['category', category],
      ['venue', venue],
    ].forEach(function (pair) {
      if (pair[1] && pair[1].value) url.searchParams.set(pair[0], pair[1].value)
      else url.searchParams.delete(pair[0])
    })
    history.replaceState(null, '', url)
    calendar.refetchEvents()
  }
  if (category) category.addEventListener('change', refilter)
  if (venue) venue.addEventListener('change', refilter)
})()
