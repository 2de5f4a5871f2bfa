// The editor: signs in with an API token and creates or edits one event through the API.
// What the API answers is what the visitor sees: a 400's messages (data.params / data.details)
// go next to the fields they name, anything else to the form's status line.
;(function () {
  var root = document.getElementById('editor')
  if (!root) return
  var api = root.getAttribute('data-api')
  var cookieName = root.getAttribute('data-cookie')
  var siteZone = root.getAttribute('data-timezone') || 'UTC'
  var KEY = 'calendar-token'
  var signIn = document.getElementById('sign-in')
  var signInForm = document.getElementById('sign-in-form')
  var editor = document.getElementById('event-editor')
  var form = document.getElementById('event-form')
  var statusBox = document.getElementById('form-status')
  var heading = document.getElementById('form-heading')
  var save = document.getElementById('save')
  var eventId = null

  function token() {
    return sessionStorage.getItem(KEY)
  }
  // The cookie lets the server-rendered pages show this visitor what the token may see
  // (drafts); the API never reads it. SameSite=Strict keeps other sites' requests without it.
  function setCookie(value) {
    var secure = location.protocol === 'https:' ? '; Secure' : ''
    document.cookie =
      cookieName + '=' + (value ? encodeURIComponent(value) : '') + '; Path=/; SameSite=Strict' + (value ? '' : '; Max-Age=0') + secure
  }

  function call(method, path, body) {
    var headers = { Accept: 'application/json', Authorization: 'Bearer ' + token() }
    if (body) headers['Content-Type'] = 'application/json'
    return fetch(api + path, { method: method, headers: headers, body: body ? JSON.stringify(body) : undefined }).then(function (res) {
      return res.text().then(function (text) {
        var json = null
        try {
          json = JSON.parse(text)
        } catch (e) {}
        return { status: res.status, body: json }
      })
    })
  }

  function notice(message, kind, link) {
    statusBox.textContent = ''
    if (!message) return
    var p = document.createElement('p')
    p.className = 'notice' + (kind === 'error' ? ' error' : '')
    p.textContent = message
    if (link) {
      p.appendChild(document.createTextNode(' '))
      var a = document.createElement('a')
      a.href = link.href
      a.textContent = link.text
      p.appendChild(a)
    }
    statusBox.appendChild(p)
  }

  function fieldError(name, message) {
    var slot = document.getElementById('error-' + name)
    var control = document.getElementById('field-' + name)
    if (!slot || !control) return false
    slot.textContent = message
    slot.hidden = false
    control.setAttribute('aria-invalid', 'true')
    return true
  }
  function clearErrors(scope) {
    scope.querySelectorAll('.field-error').forEach(function (slot) {
      slot.textContent = ''
      slot.hidden = true
    })
    scope.querySelectorAll('[aria-invalid]').forEach(function (c) {
      c.removeAttribute('aria-invalid')
    })
  }

  // The 400 envelope: params is {name: message} (invalid) or [names] (missing); details may
  // carry a more specific message per name.
  function showInvalid(body) {
    var data = (body && body.data) || {}
    var messages = {}
    if (Array.isArray(data.params))
      data.params.forEach(function (n) {
        messages[n] = 'This field is required.'
      })
    else if (data.params && typeof data.params === 'object')
      Object.keys(data.params).forEach(function (n) {
        messages[n] = data.params[n]
      })
    if (data.details && !Array.isArray(data.details)) {
      Object.keys(data.details).forEach(function (n) {
        if (data.details[n] && data.details[n].message) messages[n] = data.details[n].message
      })
    }
    var unplaced = []
    var first = null
    Object.keys(messages).forEach(function (n) {
      if (fieldError(n, messages[n])) first = first || document.getElementById('field-' + n)
      else unplaced.push(n + ': ' + messages[n])
    })
    notice(
      (body && body.message ? body.message : 'The API refused the event.') + (unplaced.length ? ' ' + unplaced.join(' ') : ''),
      'error',
    )
    if (first) first.focus()
  }

  function showSignedIn(yes) {
    signIn.hidden = yes
    editor.hidden = !yes
  }

  signInForm.addEventListener('submit', function (ev) {
    ev.preventDefault()
    clearErrors(signInForm)
    var value = document.getElementById('field-token').value.trim()
    if (!value) return void fieldError('token', 'Paste the token the server printed.')
    sessionStorage.setItem(KEY, value)
    // A token that may see drafts may edit: the list of drafts is the check.
    call('GET', '/events?status=draft&per_page=1').then(function (res) {
      if (res.status === 200) {
        setCookie(value)
        showSignedIn(true)
        start()
      } else {
        sessionStorage.removeItem(KEY)
        fieldError('token', 'The API did not accept this token for editing (HTTP ' + res.status + ').')
        document.getElementById('field-token').focus()
      }
    })
  })

  document.getElementById('sign-out').addEventListener('click', function () {
    sessionStorage.removeItem(KEY)
    setCookie(null)
    showSignedIn(false)
    document.getElementById('field-token').focus()
  })

  var wallToInput = function (s) {
    return s ? s.slice(0, 16).replace(' ', 'T') : ''
  }
  var inputToWall = function (s, allDay) {
    if (!s) return ''
    return allDay ? s.slice(0, 10) : s.replace('T', ' ') + (s.length === 16 ? ':00' : '')
  }
  function set(name, value) {
    var el = form.elements[name]
    if (!el) return
    if (el.type === 'checkbox') el.checked = !!value
    else el.value = value == null ? '' : value
  }

  function fill(e) {
    // The title as text (see calendar.js): a textarea decodes entities and never runs markup.
    var decoder = document.createElement('textarea')
    decoder.innerHTML = String(e.title).replace(/<[^>]*>?/g, '')
    set('title', decoder.value.trim())
    set('description', e.description)
    set('start_date', wallToInput(e.start_date))
    set('end_date', wallToInput(e.end_date))
    set('all_day', e.all_day)
    set('timezone', e.timezone)
    set('status', e.status === 'draft' ? 'draft' : 'publish')
    set('event_status', e.event_status || 'scheduled')
    set('event_status_reason', e.event_status_reason)
    set('attendance_mode', e.attendance_mode || 'offline')
    set('virtual_url', e.virtual_url)
    set('venue', e.venue && e.venue.id ? String(e.venue.id) : '')
    set('organizer', e.organizer && e.organizer[0] ? String(e.organizer[0].id) : '')
    set(
      'categories',
      (e.categories || [])
        .map(function (c) {
          return c.name
        })
        .join(', '),
    )
    set('cost', e.cost_details && e.cost_details.values && e.cost_details.values.length ? e.cost : e.cost || '')
    set('website', e.website && e.website !== e.url ? e.website : '')
  }

  function editing(e) {
    eventId = e.id
    heading.textContent = 'Edit event'
    save.textContent = 'Save changes'
    var url = new URL(location.href)
    url.searchParams.set('id', String(e.id))
    history.replaceState(null, '', url)
  }

  function body() {
    var v = function (n) {
      return form.elements[n].value.trim()
    }
    var allDay = form.elements.all_day.checked
    var out = {
      title: v('title'),
      description: form.elements.description.value,
      start_date: inputToWall(v('start_date'), allDay),
      end_date: inputToWall(v('end_date'), allDay),
      all_day: allDay,
      timezone: v('timezone'),
      status: v('status'),
      event_status: v('event_status'),
      event_status_reason: v('event_status_reason'),
      attendance_mode: v('attendance_mode'),
      virtual_url: v('virtual_url'),
      cost: v('cost'),
      website: v('website'),
      categories: v('categories')
        .split(',')
        .map(function (s) {
          return s.trim()
        })
        .filter(Boolean),
    }
    if (v('venue')) out.venue = Number(v('venue'))
    if (v('organizer')) out.organizer = [Number(v('organizer'))]
    return out
  }

  form.addEventListener('submit', function (ev) {
    ev.preventDefault()
    clearErrors(form)
    notice('Saving…')
    save.disabled = true
    call('POST', eventId ? '/events/' + eventId : '/events', body())
      .then(function (res) {
        if (res.status === 200 || res.status === 201) {
          var e = res.body
          editing(e)
          var published = e.status === 'publish'
          notice(
            (res.status === 201 ? 'Event created' : 'Changes saved') + (published ? '.' : ' (a draft: only editors see its page).'),
            'ok',
            { href: new URL(e.url, location.href).pathname + new URL(e.url, location.href).search, text: 'View its page' },
          )
          statusBox.focus()
        } else if (res.status === 400) {
          showInvalid(res.body)
        } else if (res.status === 401 || res.status === 403) {
          notice('This token may not do that (HTTP ' + res.status + '). ' + ((res.body && res.body.message) || ''), 'error')
        } else {
          notice('The API answered HTTP ' + res.status + ': ' + ((res.body && res.body.message) || 'no message'), 'error')
        }
      })
      .catch(function (error) {
        notice('The API could not be reached: ' + error.message, 'error')
      })
      .then(function () {
        save.disabled = false
      })
  })

  function start() {
    var id = new URL(location.href).searchParams.get('id')
    if (!id || !/^\d+$/.test(id)) {
      set('timezone', siteZone)
      return
    }
    notice('Loading event ' + id + '…')
    call('GET', '/events/' + id).then(function (res) {
      if (res.status === 200) {
        fill(res.body)
        editing(res.body)
        notice('')
      } else notice('Event ' + id + ' could not be loaded (HTTP ' + res.status + ').', 'error')
    })
  }

  statusBox.tabIndex = -1
  if (token()) {
    showSignedIn(true)
    start()
  } else showSignedIn(false)
})()
