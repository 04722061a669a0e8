// Every import resolves as written (issue 26): a relative import names a file that exists
// relative to its own file; a `vit-relevance/…` import resolves through package.json
// "exports" to a file that exists; a module a Worker loads imports no package name (a
// Worker gets no import map); a page whose modules import one maps it, in its import
// map, to the very file the exports name; and no module a bundle moves (web/'s
// folders, the browser's runtime/) builds a URL from its own location or imports one of
// web/'s top-level scripts (a bundle keeps that import as written). No bundler, no path
// rewriting in between.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { withModulePreloads } from '../../scripts/build/site.js';
import { importMap, withImportMap } from '../../scripts/import-map.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['web', 'runtime', 'cli', 'bench', 'tests', 'scripts'];
const PACKAGE = 'vit-relevance';
// The scripts web/ starts as Workers (web/lib/site-files.js, web/api/photo-decoder.js).
const WORKERS = ['web/worker.js', 'web/decode-worker.js'];

// web/'s top-level scripts are the bundles' entries; web/examples/ is copied as it is; every
// other module of web/ ends up inside a bundle, at the top of dist/site.
const isTopLevelScript = (f) => /^web\/[^/]+\.js$/.test(f);
const isBundledWebModule = (f) => f.startsWith('web/') && !isTopLevelScript(f) && !f.startsWith('web/examples/');

// Static imports and re-exports (at the start of a line, so not in comments), side-effect
// imports, and dynamic imports of a string literal.
const IMPORTS = [
  /^[ \t]*(?:import|export)\b[^'"`;]*?\bfrom\s*(['"])([^'"]+)\1/gm,
  /^[ \t]*import\s*(['"])([^'"]+)\1/gm,
  /\bimport\(\s*(['"])([^'"]+)\1\s*\)/g,
];
export const importsOf = (source) => IMPORTS.flatMap((re) => [...source.matchAll(re)].map((m) => m[2]));

const isModuleFile = (name) => /\.(js|mjs)$/.test(name);
function filesUnder(dir) {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : filesUnder(rel);
    return isModuleFile(e.name) ? [rel] : [];
  });
}

// The file an import names (repository-relative), or a message saying why it does not resolve.
function resolveImport(from, specifier) {
  if (/^\.\.?\//.test(specifier)) {
    const file = path.posix.join(path.posix.dirname(from), specifier);
    return existsSync(path.join(root, file)) ? { file } : { error: `${specifier}: no such file relative to ${from}` };
  }
  if (specifier !== PACKAGE && !specifier.startsWith(`${PACKAGE}/`)) return {}; // node:, other packages
  let url;
  try {
    url = import.meta.resolve(specifier);
  } catch (err) {
    return { error: `${specifier}: not in package.json "exports" (${err.code ?? err.message})` };
  }
  const file = path.relative(root, fileURLToPath(url)).split(path.sep).join('/');
  return existsSync(path.join(root, file)) ? { file, bare: true } : { error: `${specifier}: exports name ${file}, which does not exist` };
}

const sources = FOLDERS.flatMap(filesUnder);
const imports = new Map(sources.map((file) => [file, importsOf(readFileSync(path.join(root, file), 'utf8'))
  .map((specifier) => ({ specifier, ...resolveImport(file, specifier) }))]));

// The modules reachable from `entries` through resolved imports.
function moduleGraph(entries) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file) || !imports.has(file)) return;
    seen.add(file);
    for (const i of imports.get(file)) if (i.file) visit(i.file);
  };
  entries.forEach(visit);
  return seen;
}

test('the checker finds the imports of every form', () => {
  const source = [
    "import { a } from './a.js';",
    'import {\n  b,\n  c,\n} from "../b.js";',
    "export { d } from './d.js';",
    "import './side-effect.js';",
    "const e = await import('./maps-support.js');",
    "// import { no } from './comment.js';",
    " * import { no } from './doc.js';",
  ].join('\n');
  assert.deepEqual(importsOf(source).sort(), ['../b.js', './a.js', './d.js', './maps-support.js', './side-effect.js']);
  assert.match(resolveImport('web/app.js', './runtime/core.js').error, /no such file relative to web\/app\.js/);
  assert.match(resolveImport('web/app.js', 'vit-relevance/src/core.cpp').error, /not in package\.json "exports"/);
  assert.deepEqual(resolveImport('web/app.js', 'vit-relevance/runtime/core.js'), { file: 'runtime/core.js', bare: true });
});

test('every relative import names a file that exists relative to its file; every package import resolves through "exports"', () => {
  const broken = [...imports].flatMap(([file, list]) => list.filter((i) => i.error).map((i) => `${file}: ${i.error}`));
  assert.deepEqual(broken, []);
  assert.ok(sources.length > 100, `${sources.length} files checked`);
});

test('a module a Worker loads imports no package name (a Worker gets no import map)', () => {
  const graph = moduleGraph(WORKERS);
  assert.ok(graph.has('runtime/core.js') && graph.has('runtime/png-decode.js') && graph.has('runtime/png-header.js') && graph.has('web/worker/sessions.js'), 'the Workers\' graphs reach their jobs and the runtime');
  const bare = [...graph].flatMap((file) => imports.get(file).filter((i) => i.bare).map((i) => `${file}: ${i.specifier}`));
  assert.deepEqual(bare, []);
});

test("only web/'s top-level scripts build URLs from their own location (a bundle moves the rest)", () => {
  const bundled = sources.filter((f) => isBundledWebModule(f) || (f.startsWith('runtime/') && !f.startsWith('runtime/node/')));
  const code = (file) => readFileSync(path.join(root, file), 'utf8').split('\n').filter((l) => !/^\s*(\/\/|\*)/.test(l)).join('\n');
  assert.deepEqual(bundled.filter((f) => code(f).includes('import.meta.url')), []);
});

// Every top-level script is a bundle entry, and an import of one stays an import that names
// its bundle beside the importer's (scripts/build/bundle.js): what the built site imports exists.
test('every relative import in the built site names a file the site has', () => {
  const site = path.join(root, 'dist', 'site');
  assert.ok(existsSync(site), 'dist/site exists (npm run build)');
  const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.\.?\/[^"']+\.js)["']/g;
  const missing = readdirSync(site).filter((n) => n.endsWith('.js')).flatMap((n) => [...readFileSync(path.join(site, n), 'utf8').matchAll(IMPORT)]
    .map((m) => m[1]).filter((spec) => !existsSync(path.join(site, spec))).map((spec) => `${n}: ${spec}`));
  assert.deepEqual(missing, []);
});

// Each built page's head preloads every bundle its module scripts import statically,
// directly or not, so the browser requests them at once (scripts/build/site.js).
test("the built pages' heads preload every bundle their module scripts import, and only those", () => {
  const site = path.join(root, 'dist', 'site');
  const STATIC = /(?:^|[;}\s])(?:import|export)\b[^"'();]*?\bfrom\s*["'](\.\/[^"']+\.js)["']|(?:^|[;}\s])import\s*["'](\.\/[^"']+\.js)["']/g;
  const staticImports = (file) => [...readFileSync(path.join(site, file), 'utf8').matchAll(STATIC)].map((m) => (m[1] ?? m[2]).slice(2));
  const closure = (file, seen = new Set()) => {
    for (const f of staticImports(file)) if (!seen.has(f)) { seen.add(f); closure(f, seen); }
    return seen;
  };
  for (const name of readdirSync(site).filter((n) => n.endsWith('.html'))) {
    const head = readFileSync(path.join(site, name), 'utf8').split('</head>')[0];
    const scripts = [...head.matchAll(/<script type="module" src="([^"]+)">/g)].map((m) => m[1]).filter((f) => existsSync(path.join(site, f)));
    const preloaded = [...head.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]);
    const expected = new Set(scripts.flatMap((f) => [...closure(f)].filter((g) => g !== f)));
    assert.deepEqual(new Set(preloaded), expected, name);
    if (name === 'index.html') assert.ok(expected.has('vit-relevance.js'), 'the page preloads the API');
  }
});

test('a page gets its preloads in its head, after each module script; its body stays as written', () => {
  const imports = new Map([['a.js', ['b.js']], ['b.js', ['c.js', 'a.js']]]);
  const html = '<head>\n  <script type="module" src="a.js"></script>\n</head>\n<body>\n<script type="module" src="a.js"></script>\n</body>\n';
  assert.equal(withModulePreloads(html, imports), '<head>\n  <script type="module" src="a.js"></script>\n'
    + '  <link rel="modulepreload" href="b.js">\n  <link rel="modulepreload" href="c.js">\n'
    + '</head>\n<body>\n<script type="module" src="a.js"></script>\n</body>\n');
});

// A page's module scripts and its import map: { modules: [file], map: { specifier prefix → file } }.
function pageOf(html) {
  const file = `web/${html}`;
  const text = withImportMap(readFileSync(path.join(root, file), 'utf8'), importMap(root)); // as the sources' server serves it
  const modules = [...text.matchAll(/<script type="module" src="([^"]+)">/g)].map((m) => path.posix.join('web', m[1]));
  const json = /<script type="importmap">([^<]*)<\/script>/.exec(text)?.[1];
  const pageUrl = pathToFileURL(path.join(root, file));
  const map = Object.fromEntries(Object.entries(json ? JSON.parse(json).imports : {})
    .map(([key, target]) => [key, path.relative(root, fileURLToPath(new URL(target, pageUrl))).split(path.sep).join('/')]));
  return { file, modules, map };
}

test('each page maps every package name its modules import to the file package.json "exports" names', () => {
  const pages = readdirSync(path.join(root, 'web')).filter((n) => n.endsWith('.html')).map(pageOf);
  assert.ok(pages.length >= 3);
  for (const { file, modules, map } of pages) {
    for (const m of modules) assert.ok(existsSync(path.join(root, m)), `${file}: <script src> ${m} exists`);
    for (const module of moduleGraph(modules)) {
      for (const { specifier, file: exported, bare } of imports.get(module)) {
        if (!bare) continue;
        // An import map's prefix keys end in "/" and map the rest of the specifier as a path.
        const key = Object.keys(map).filter((k) => specifier === k || (k.endsWith('/') && specifier.startsWith(k)))
          .sort((a, b) => b.length - a.length)[0];
        assert.ok(key, `${file}: its import map names no ${specifier} (imported by ${module})`);
        const mapped = key === specifier ? map[key] : path.posix.join(map[key], specifier.slice(key.length));
        assert.equal(mapped, exported, `${file}: its import map sends ${specifier} to ${mapped}, "exports" to ${exported}`);
      }
    }
  }
});

test('the pages as written carry no import map; the served one comes before their first script, and adds one line', () => {
  for (const name of readdirSync(path.join(root, 'web')).filter((n) => n.endsWith('.html'))) {
    const html = readFileSync(path.join(root, 'web', name), 'utf8');
    assert.ok(!html.includes('importmap'), `${name} writes no import map (scripts/import-map.js is its one place)`);
    const served = withImportMap(html, importMap(root));
    assert.equal(served.split('\n').length, html.split('\n').length + 1, name);
    assert.ok(served.indexOf('<script type="importmap">') < served.indexOf('<script src=') || !served.includes('<script src='), name);
    assert.ok(served.indexOf('<script type="importmap">') < served.indexOf('<script type="module"'), name);
  }
});

// The page and its panels are clients of the public API (issue 26): only the API's own
// modules and the Worker's talk the Worker's message protocol.
const PROTOCOL = ['web/lib/protocol.js', 'web/api/worker-client.js'];
const API = ['web/vit-relevance.js', 'web/api/shared-runtime.js', 'web/api/worker-client.js'];

test("no web/ module but the API's and the Worker's imports the message protocol or the WorkerClient", () => {
  const allowed = new Set([...API, ...moduleGraph(WORKERS)]);
  const talkers = [...imports].filter(([file]) => file.startsWith('web/') && !file.startsWith('web/api/') && !allowed.has(file))
    .flatMap(([file, list]) => list.filter((i) => PROTOCOL.includes(i.file)).map((i) => `${file}: ${i.specifier}`));
  assert.deepEqual(talkers, []);
  assert.ok(moduleGraph(['web/app.js']).has('web/api/explainer.js'), 'the page reaches the Worker through the API');
});
