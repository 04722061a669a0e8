// The site's response headers, in one table: the Node server (scripts/serve.js) sends them,
// the build writes them to dist/site/_headers (Netlify, Cloudflare Pages), and the
// snippets in docs/hosting.md are checked against them by tests/node/server-headers.test.js.
//
// Rules use the _headers path syntax: an exact path, or a prefix ending in `*`. A path gets
// the headers of every rule it matches. Static hosts join a header set by two matching rules
// with a comma (for a CSP that means two policies, both enforced), so no header may come
// from two rules that match one path; the test checks that.

// Content-Security-Policy sources, and why each is there.
const SELF = "'self'";
const SCRIPTS = [SELF, "'wasm-unsafe-eval'"]; // site modules; WebAssembly compiles (onnxruntime-web, the C++ core), never JS eval
const WORKERS = [SELF];                       // web/worker.js, web/decode-worker.js and onnxruntime-web's threads (ort/*.mjs)
const CONNECT = [SELF];                       // models, samples and .wasm files, all same-origin

// A document: the page, the docs page. Photos come as blob: URLs (image size probe), the
// empty favicon `data:,` keeps browsers from asking for /favicon.ico.
const DOCUMENT = {
  'default-src': ["'none'"],
  'script-src': SCRIPTS,
  'worker-src': WORKERS,
  'connect-src': CONNECT,
  'img-src': [SELF, 'blob:', 'data:'],
  'style-src': [SELF],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': [SELF],
};
// The embed route is made to be framed by other sites.
const EMBED = { ...DOCUMENT, 'frame-ancestors': ['*'] };
// The docs page shows the embed route in an iframe of its own.
const DOCS = { ...DOCUMENT, 'frame-src': [SELF] };
// A dedicated worker runs under the policy sent with its own script, not its page's.
const WORKER = {
  'default-src': ["'none'"],
  'script-src': SCRIPTS,
  'worker-src': WORKERS,
  'connect-src': CONNECT,
};

export const policyText = (policy) =>
  Object.entries(policy).map(([directive, sources]) => [directive, ...sources].join(' ')).join('; ');

const CSP = 'Content-Security-Policy';
// Cross-origin isolation (COOP + COEP) gives the page SharedArrayBuffer, i.e. onnxruntime's
// WebAssembly threads; without it the page runs on one thread.
export const ISOLATION_HEADERS = ['Cross-Origin-Opener-Policy', 'Cross-Origin-Embedder-Policy', 'Cross-Origin-Resource-Policy'];

export const HEADER_RULES = [
  {
    paths: ['/*'],
    headers: {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'X-Content-Type-Options': 'nosniff',
    },
  },
  // Cloudflare Pages and Netlify (pretty URLs) serve x.html at /x too.
  { paths: ['/', '/index.html'], headers: { [CSP]: policyText(DOCUMENT) } },
  { paths: ['/docs.html', '/docs'], headers: { [CSP]: policyText(DOCS) } },
  { paths: ['/embed.html', '/embed'], headers: { [CSP]: policyText(EMBED) } },
  // Worker scripts: the page's Workers and onnxruntime-web's thread workers.
  { paths: ['/worker.js', '/decode-worker.js', '/ort/*'], headers: { [CSP]: policyText(WORKER) } },
  // onnxruntime-web under its version (ort/v<version>/, scripts/build/site.js): these bytes
  // never change at this URL, so browsers keep them without asking again.
  { paths: ['/ort/v*'], headers: { 'Cache-Control': 'public, max-age=31536000, immutable' } },
];

// The policy of an HTML file no rule names (a page added without a rule): the strict
// document policy rather than none. tests/node/server-headers.test.js wants a rule for
// every page in web/, so hosts get it too.
export const DEFAULT_DOCUMENT_POLICY = policyText(DOCUMENT);

// Does rule pattern `rule` apply to everything `target` names? `target` is a URL path or
// itself a pattern (for nginx locations).
const covers = (rule, target) =>
  rule.endsWith('*') ? target.startsWith(rule.slice(0, -1)) : target === rule;

// The headers for a URL path (of the file served, e.g. /index.html).
export function headersFor(urlPath, { isolate = true } = {}) {
  const headers = {};
  for (const rule of HEADER_RULES) {
    if (rule.paths.some((p) => covers(p, urlPath))) Object.assign(headers, rule.headers);
  }
  if (!isolate) for (const name of ISOLATION_HEADERS) delete headers[name];
  return headers;
}

// Pairs of patterns of which one covers the other, and a header both set (must be none).
export function overlappingRules() {
  const found = [];
  HEADER_RULES.forEach((a, i) => HEADER_RULES.slice(i + 1).forEach((b) => {
    const shared = Object.keys(a.headers).filter((h) => h in b.headers);
    for (const p of a.paths) for (const q of b.paths) {
      if (shared.length && (covers(p, q) || covers(q, p))) found.push([p, q, shared]);
    }
  }));
  return found;
}

// dist/site/_headers: Netlify's and Cloudflare Pages' format.
export function headersFile() {
  const blocks = HEADER_RULES.flatMap(({ paths, headers }) =>
    paths.map((p) => [p, ...Object.entries(headers).map(([k, v]) => `  ${k}: ${v}`)].join('\n')));
  return blocks.join('\n') + '\n';
}

// nginx: headers that every path gets are plain add_header lines; one that varies by path
// is a map on $uri (the path after `index` resolved / to /index.html) whose empty value
// sends nothing. Returns the `http {}` part (maps) and the `server {}` part.
export function nginxConfig() {
  const names = [...new Set(HEADER_RULES.flatMap((r) => Object.keys(r.headers)))];
  const http = [];
  const server = [];
  for (const name of names) {
    const rules = HEADER_RULES.filter((r) => name in r.headers);
    if (rules.length === 1 && rules[0].paths.length === 1 && rules[0].paths[0] === '/*') {
      server.push(`add_header ${name} "${rules[0].headers[name]}" always;`);
      continue;
    }
    const variable = `$site_${name.toLowerCase().replaceAll('-', '_')}`;
    const entries = rules.flatMap((r) => r.paths.map((p) => {
      const key = p === '/*' ? 'default' : p.endsWith('*') ? `~^${p.slice(0, -1).replace(/[.^$]/g, '\\$&')}` : p;
      return `    ${key} "${r.headers[name]}";`;
    }));
    if (!entries.some((e) => e.startsWith('    default '))) entries.unshift('    default "";');
    http.push([`map $uri ${variable} {`, ...entries, '}'].join('\n'));
    server.push(`add_header ${name} ${variable} always;`);
  }
  return { http: http.join('\n') + '\n', server: server.join('\n') + '\n' };
}
