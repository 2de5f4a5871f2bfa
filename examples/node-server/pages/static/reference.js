// The API reference: Swagger UI (from node_modules) over the router's OpenAPI document.
;(function () {
  var root = document.getElementById('swagger-ui')
  if (!root || typeof SwaggerUIBundle !== 'function') return
  root.textContent = ''
  SwaggerUIBundle({
    url: root.getAttribute('data-url'),
    domNode: root,
    deepLinking: true,
    // Offline: no badge that calls the public validator service.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    defaultModelsExpandDepth: 0,
    docExpansion: 'none',
    // Swagger UI's server picker has no label of its own.
    onComplete: function () {
      var servers = document.getElementById('servers')
      if (servers && !servers.getAttribute('aria-label')) servers.setAttribute('aria-label', 'Server')
      // Its layout has a <main> of its own inside the page's: one main landmark per page.
      root.querySelectorAll('main').forEach(function (inner) {
        inner.setAttribute('role', 'region')
        inner.setAttribute('aria-label', 'Operations')
      })
    },
  })
})()
