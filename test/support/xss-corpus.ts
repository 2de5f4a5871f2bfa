/**
 * Known XSS vectors: the OWASP XSS filter-evasion cheat sheet's patterns (case, entities, tabs
 * and control characters inside schemes, broken and nested tags, legacy attributes), mutation
 * XSS that exploits parser differences (foreign content, raw-text elements, namespace
 * confusion) and entity tricks. Each is written verbatim into every free-text field by the
 * sanitize suite; nothing here is expected to survive as live markup.
 */
export interface Vector {
  name: string
  html: string
}

const JS_DECIMAL =
  '&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;'
const JS_DECIMAL_PADDED =
  '&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041'
const JS_HEX = '&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29'

export const XSS_CORPUS: readonly Vector[] = [
  // Plain script and its spellings.
  { name: 'script element', html: '<script>alert(1)</script>' },
  { name: 'external script, upper case', html: '<SCRIPT SRC=http://xss.example/xss.js></SCRIPT>' },
  { name: 'script with slash separator', html: '<SCRIPT/XSS SRC="http://xss.example/xss.js"></SCRIPT>' },
  { name: 'script without closing tag', html: '<SCRIPT SRC=http://xss.example/xss.js?< B >' },
  { name: 'protocol-relative script', html: '<SCRIPT SRC=//xss.example/.j>' },
  { name: 'extraneous open brackets', html: '<<SCRIPT>alert("XSS");//\\<</SCRIPT>' },
  { name: 'nested script to reassemble', html: '<scr<script>ipt>alert(1)</scr</script>ipt>' },
  { name: 'closing title then script', html: '</TITLE><SCRIPT>alert("XSS");</SCRIPT>' },
  { name: 'attribute break-out then script', html: '"><script>alert(1)</script>' },
  { name: 'XSS locator', html: "'';!--\"<XSS>=&{()}" },
  { name: 'script in svg', html: '<svg><script>alert(1)</script></svg>' },
  { name: 'CDATA-wrapped script', html: '<![CDATA[<script>alert(1)</script>]]>' },
  // Event handlers.
  { name: 'img onerror', html: '<img src=x onerror=alert(1)>' },
  { name: 'img onerror with allowed src', html: '<img src="https://ok.example/a.png" onerror="alert(1)">' },
  { name: 'anchor onmouseover', html: '<a onmouseover="alert(document.cookie)">xxs link</a>' },
  { name: 'img src=# onmouseover', html: '<IMG SRC=# onmouseover="alert(\'xxs\')">' },
  { name: 'img empty src then handler', html: '<IMG SRC= onmouseover="alert(\'xxs\')">' },
  { name: 'img handler, no src', html: '<IMG onmouseover="alert(\'xxs\')">' },
  { name: 'onerror with padded decimal entities', html: `<img src=x onerror="${JS_DECIMAL_PADDED}">` },
  { name: 'malformed img quotes hiding script', html: '<IMG """><SCRIPT>alert("XSS")</SCRIPT>"\\>' },
  { name: 'body onload with junk characters', html: '<BODY onload!#$%&()*~+-_.,:;?@[/|\\]^`=alert("XSS")>' },
  { name: 'svg onload', html: "<svg/onload=alert('XSS')>" },
  { name: 'paragraph onclick', html: '<p onclick="alert(1)">text</p>' },
  { name: 'custom element onclick', html: '<x onclick=alert(1)>click' },
  { name: 'details ontoggle', html: '<details open ontoggle=alert(1)>x</details>' },
  { name: 'video source onerror', html: '<video><source onerror="alert(1)"></video>' },
  { name: 'audio onerror', html: '<audio src=x onerror=alert(1)>' },
  { name: 'marquee onstart', html: '<marquee onstart=alert(1)>x</marquee>' },
  { name: 'newlines between attributes', html: '<img\nsrc=x\nonerror=alert(1)>' },
  { name: 'double bracket img', html: '<<img src=x onerror=alert(1)//>' },
  { name: 'unterminated img', html: '<img src=x onerror=alert(1)//' },
  { name: 'mailto link with handler', html: '<a href="mailto:x@example.com" onmouseover=alert(1)>mail</a>' },
  { name: 'handler named javascript', html: '<img src=1 href=1 onerror="javascript:alert(1)"></img>' },
  // javascript:, vbscript:, data: URLs and their disguises.
  { name: 'img javascript src', html: '<IMG SRC="javascript:alert(\'XSS\');">' },
  { name: 'img javascript src unquoted', html: "<IMG SRC=javascript:alert('XSS')>" },
  { name: 'mixed-case scheme', html: "<IMG SRC=JaVaScRiPt:alert('XSS')>" },
  { name: 'grave-accent quoting', html: '<IMG SRC=`javascript:alert("RSnake says, \'XSS\'")`>' },
  { name: 'fromCharCode', html: '<IMG SRC=javascript:alert(String.fromCharCode(88,83,83))>' },
  { name: 'decimal entities in scheme', html: `<IMG SRC=${JS_DECIMAL}>` },
  { name: 'padded decimal entities without semicolons', html: `<IMG SRC=${JS_DECIMAL_PADDED}>` },
  { name: 'hex entities without semicolons', html: `<IMG SRC=${JS_HEX}>` },
  { name: 'hex entities in href', html: '<a href="&#x6a;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3a;alert(1)">x</a>' },
  { name: 'one entity letter', html: '<a href="java&#115;cript:alert(1)">x</a>' },
  { name: 'named entity colon', html: '<a href="javascript&colon;alert(1)">x</a>' },
  { name: 'literal tab in scheme', html: '<a href="jav\tascript:alert(\'XSS\');">x</a>' },
  { name: 'encoded tab in scheme', html: '<IMG SRC="jav&#x09;ascript:alert(\'XSS\');">' },
  { name: 'named tab entity in scheme', html: '<a href="jav&Tab;ascript:alert(1)">x</a>' },
  { name: 'encoded newline in scheme', html: '<a href="jav&#x0A;ascript:alert(\'XSS\');">x</a>' },
  { name: 'named newline entity in scheme', html: '<a href="java&NewLine;script:alert(1)">x</a>' },
  { name: 'encoded carriage return in scheme', html: '<a href="jav&#x0D;ascript:alert(\'XSS\');">x</a>' },
  // A raw NUL is refused for every role (storage cannot hold it); its entity is text to filter.
  { name: 'null character reference in scheme', html: '<a href="java&#0;script:alert(1)">x</a>' },
  { name: 'control character before scheme', html: '<a href="&#1;javascript:alert(1)">x</a>' },
  { name: 'spaces and meta characters before scheme', html: '<a href=" &#14;  javascript:alert(\'XSS\');">x</a>' },
  { name: 'upper-case scheme', html: '<a href="JAVASCRIPT:alert(1)">x</a>' },
  { name: 'unquoted javascript href', html: '<a href=javascript:alert(1)>x</a>' },
  { name: 'slash instead of space', html: '<a/href="javascript:alert(1)">x</a>' },
  { name: 'half-open javascript img', html: '<IMG SRC="`javascript:alert(\'XSS\')"`' },
  { name: 'unterminated javascript link', html: '<a href="javascript:alert(1)"' },
  { name: 'vbscript link', html: '<a href="vbscript:msgbox(\'XSS\')">x</a>' },
  { name: 'data: html link', html: '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>' },
  { name: 'data: html link, inline script', html: '<a href="data:text/html,<script>alert(1)</script>">x</a>' },
  { name: 'data: svg image', html: '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">' },
  { name: 'srcset with javascript', html: '<img src="https://ok.example/a.png" srcset="x 1x, javascript:alert(1) 2x">' },
  { name: 'legacy dynsrc', html: '<IMG DYNSRC="javascript:alert(\'XSS\')">' },
  { name: 'legacy lowsrc', html: '<IMG LOWSRC="javascript:alert(\'XSS\')">' },
  { name: 'body background', html: '<BODY BACKGROUND="javascript:alert(\'XSS\')">' },
  { name: 'table background', html: '<TABLE BACKGROUND="javascript:alert(\'XSS\')"><tr><td>x</td></tr></TABLE>' },
  { name: 'cell background', html: '<TABLE><TD BACKGROUND="javascript:alert(\'XSS\')">x</TD></TABLE>' },
  { name: 'blockquote cite javascript', html: '<blockquote cite="javascript:alert(1)">q</blockquote>' },
  // Embedding and navigation elements.
  { name: 'iframe javascript', html: '<IFRAME SRC="javascript:alert(\'XSS\');"></IFRAME>' },
  { name: 'iframe srcdoc', html: '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>' },
  { name: 'unclosed iframe', html: '<iframe src=http://xss.example/scriptlet.html <' },
  { name: 'frameset', html: '<FRAMESET><FRAME SRC="javascript:alert(\'XSS\');"></FRAMESET>' },
  { name: 'object scriptlet', html: '<OBJECT TYPE="text/x-scriptlet" DATA="http://xss.example/scriptlet.html"></OBJECT>' },
  { name: 'object javascript data', html: '<object data="javascript:alert(1)"></object>' },
  {
    name: 'embed svg',
    html: '<EMBED SRC="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+" type="image/svg+xml" AllowScriptAccess="always"></EMBED>',
  },
  { name: 'meta refresh javascript', html: '<META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:alert(\'XSS\');">' },
  {
    name: 'meta refresh data',
    html: '<META HTTP-EQUIV="refresh" CONTENT="0;url=data:text/html base64,PHNjcmlwdD5hbGVydCgnWFNTJyk8L3NjcmlwdD4K">',
  },
  { name: 'base href', html: '<base href="javascript:alert(1)//">' },
  { name: 'link stylesheet javascript', html: '<LINK REL="stylesheet" HREF="javascript:alert(\'XSS\');">' },
  { name: 'bgsound', html: '<BGSOUND SRC="javascript:alert(\'XSS\');">' },
  { name: 'form action', html: '<form action="javascript:alert(1)"><button>go</button></form>' },
  { name: 'button formaction', html: '<button formaction="javascript:alert(1)">x</button>' },
  { name: 'input image', html: '<INPUT TYPE="IMAGE" SRC="javascript:alert(\'XSS\');">' },
  { name: 'isindex', html: '<isindex action=javascript:alert(1) type=image>' },
  { name: 'template content', html: '<template><img src=x onerror=alert(1)></template>' },
  { name: 'svg xlink:href', html: '<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">XSS</text></a></svg>' },
  { name: 'mathml href', html: '<math><mi xlink:href="javascript:alert(1)">x</mi></math>' },
  // Styles.
  {
    name: 'style element list-style-image',
    html: '<STYLE>li {list-style-image: url("javascript:alert(\'XSS\')");}</STYLE><UL><LI>XSS</br>',
  },
  { name: 'style @import', html: "<STYLE>@import'http://xss.example/xss.css';</STYLE>" },
  { name: 'style url(javascript:)', html: '<DIV STYLE="background-image: url(javascript:alert(\'XSS\'))">x</DIV>' },
  {
    name: 'style with CSS escapes',
    html: '<DIV STYLE="background-image:\\0075\\0072\\006C\\0028\'\\006a\\0061\\0076\\0061\\0073\\0063\\0072\\0069\\0070\\0074\\003a\\0061\\006c\\0065\\0072\\0074\\0028.1027\\0058.1053\\0053\\0027\\0029\'\\0029">x</DIV>',
  },
  { name: 'style expression()', html: '<DIV STYLE="width: expression(alert(\'XSS\'));">x</DIV>' },
  { name: 'style expression split by comment', html: '<IMG STYLE="xss:expr/*XSS*/ession(alert(\'XSS\'))">' },
  { name: 'style url with entity-encoded scheme', html: '<p style="color: red; background: url(&#106;avascript:alert(1))">x</p>' },
  { name: 'style behavior', html: '<p style="behavior: url(xss.htc)">x</p>' },
  { name: 'style -moz-binding', html: '<p style="-moz-binding:url(http://xss.example/xss.xml#xss)">x</p>' },
  { name: 'link with style url', html: '<a href="https://ok.example/" style="background:url(javascript:alert(1))">x</a>' },
  // Mutation XSS: parser differentials between a sanitizer and the browser.
  { name: 'mXSS mglyph/style in math', html: '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>' },
  { name: 'mXSS svg p style', html: '<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">' },
  { name: 'mXSS noscript title', html: '<noscript><p title="</noscript><img src=x onerror=alert(1)>">' },
  { name: 'mXSS nested forms', html: '<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>' },
  { name: 'mXSS svg style title', html: '<svg><p><style><g title="</style><img src onerror=alert(1)>">' },
  { name: 'mXSS comment in attribute', html: '<!--<img src="--><img src=x onerror=alert(1)//">' },
  { name: 'mXSS textarea', html: '<textarea><script>alert(1)</script></textarea>' },
  { name: 'mXSS title element', html: '<title><img src=x onerror=alert(1)></title>' },
  { name: 'mXSS xmp', html: '<xmp><img src=x onerror=alert(1)></xmp>' },
  { name: 'mXSS style element content', html: '<style><img src=x onerror=alert(1)></style>' },
  { name: 'mXSS select/style', html: '<select><style></select><img src=x onerror=alert(1)></style>' },
  { name: 'mXSS backtick attribute', html: '<div title="``onmouseover=alert(1)">x</div>' },
  // Entity tricks and DOM clobbering.
  { name: 'entity-escaped script as text', html: '&lt;script&gt;alert(1)&lt;/script&gt;' },
  { name: 'double-escaped script', html: '&amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt;' },
  {
    name: 'DOM clobbering id/name',
    html: '<a id="cookie" name="cookie" href="#">x</a><img name="getElementById" src="https://ok.example/a.png">',
  },
  { name: 'safe link then script', html: '<a href="https://ok.example/">ok</a><script>alert(1)</script>' },
]

/** Formatting an author may use; each `keep` fragment must survive (as a browser serializes it). */
export interface Benign {
  html: string
  /** Fragments that must be present in the stored value. */
  keep: string[]
}

export const BENIGN_RICH: readonly Benign[] = [
  {
    html: '<p><strong>Bold</strong>, <em>italic</em> and <a href="https://example.com/page?a=1&amp;b=2" title="Page">a link</a>.</p>',
    keep: ['<p><strong>Bold</strong>, <em>italic</em> and <a href="https://example.com/page?a=1&amp;b=2" title="Page">a link</a>.</p>'],
  },
  {
    html: '<a href="mailto:info@example.com">Mail us</a> or <a href="/about/">read more</a>',
    keep: ['<a href="mailto:info@example.com">Mail us</a>', '<a href="/about/">read more</a>'],
  },
  {
    html: '<ul><li>One</li><li>Two</li></ul><ol start="3"><li>Three</li></ol>',
    keep: ['<ul><li>One</li><li>Two</li></ul>', '<ol start="3"><li>Three</li></ol>'],
  },
  {
    html: '<h2>Programme</h2><blockquote><p>Quote</p></blockquote><pre><code>npm start</code></pre>',
    keep: ['<h2>Programme</h2>', '<blockquote><p>Quote</p></blockquote>', '<pre><code>npm start</code></pre>'],
  },
  {
    html: '<table><thead><tr><th>Time</th></tr></thead><tbody><tr><td colspan="2">10:00</td></tr></tbody></table>',
    keep: ['<table><thead><tr><th>Time</th></tr></thead><tbody><tr><td colspan="2">10:00</td></tr></tbody></table>'],
  },
  {
    html: '<img src="https://example.com/a.png" alt="Poster" width="300" height="200">',
    keep: ['<img src="https://example.com/a.png" alt="Poster" width="300" height="200">'],
  },
  { html: '<p style="text-align: center">Centred</p>', keep: ['<p style="text-align:center">Centred</p>'] },
  { html: 'Line one<br>Line two<hr>', keep: ['Line one<br>Line two<hr>'] },
  { html: 'Fish &amp; chips &lt;3 &#8220;quoted&#8221;', keep: ['Fish &amp; chips &lt;3'] },
]

/** Titles and names keep inline formatting only. */
export const BENIGN_INLINE: readonly Benign[] = [
  { html: 'Jazz <em>night</em> &amp; <strong>more</strong>', keep: ['Jazz <em>night</em> &amp; <strong>more</strong>'] },
  { html: 'H<sub>2</sub>O and E=mc<sup>2</sup>', keep: ['H<sub>2</sub>O and E=mc<sup>2</sup>'] },
  { html: 'Plain title with no markup', keep: ['Plain title with no markup'] },
]
