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
  })
})()
