// Builds dist/site: the page (web/) with its scripts bundled and minified (bundle.js; the
// shared runtime/ inside them), the WebAssembly core (build/wasm), the onnxruntime-web
// files the Worker loads, the explainer graphs (build/models, and the extra exported models
// of VITREL_MODELS) and the sample photos, each where web/lib/site-files.js looks for it.
// Everything relative, nothing from a CDN, so the folder works on any static host.
// Unchanged files are not copied again. To run the modules as written instead, serve the
// sources (scripts/serve-sources.js).
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { headersFile } from '../site-headers.js';
import { bundleScripts, minifyModule } from './bundle.js';
import { extraModels, siteFiles } from './site-models.js';

// onnxruntime-web: the plain WebAssembly build, plus the WebGPU build (JSEP) for browsers
// that offer WebGPU. Each .mjs loads the matching ort-wasm-*.{mjs,wasm} pair from its own
// folder. They sit under their version, ort/v<version>/, served as immutable
// (scripts/site-headers.js): a returning visit revalidates none of them (each was a round
// trip, one after another), and an upgrade changes the folder. The Worker imports the two
// entries through ort/<entry>, a re-export that is revalidated as the site's other scripts.
const ORT_ENTRIES = ['ort.wasm.min.mjs', 'ort.webgpu.min.mjs'];
const ORT_FILES = [
  'ort.wasm.min.mjs', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm',
  'ort.webgpu.min.mjs', 'ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm',
];
const IMAGE_EXT = /\.(png|jpe?g|webp|gif|bmp)$/i;

async function copyIfChanged(from, to) {
  const src = await stat(from);
  const dst = await stat(to).catch(() => null);
  if (dst && dst.size === src.size && dst.mtimeMs >= src.mtimeMs) return false;
  await mkdir(path.dirname(to), { recursive: true });
  await copyFile(from, to);
  return true;
}

async function copyTree(fromDir, toDir, filter = () => true) {
  const copied = [];
  for (const entry of await readdir(fromDir, { withFileTypes: true })) {
    const from = path.join(fromDir, entry.name);
    const to = path.join(toDir, entry.name);
    if (entry.isDirectory()) { if (filter(entry.name, true)) copied.push(...await copyTree(from, to, filter)); } else if (filter(entry.name)) { await copyIfChanged(from, to); copied.push(to); }
  }
  return copied;
}

// The gallery's listing of a folder of sample photos (a static host cannot list folders).
export const sampleListing = async (dir) => JSON.stringify({ images: (await readdir(dir)).filter((n) => IMAGE_EXT.test(n)).sort() }, null, 1) + '\n';

// Sample photos plus their listing.
async function copySamples(fromDir, toDir, warn) {
  if (!existsSync(fromDir)) {
    warn(`no sample photos at ${fromDir} (set VITREL_SAMPLE_IMAGES); the gallery will be empty`);
    await mkdir(toDir, { recursive: true });
    return writeFile(path.join(toDir, 'index.json'), '{"images":[]}\n');
  }
  const listing = await sampleListing(fromDir);
  for (const n of JSON.parse(listing).images) await copyIfChanged(path.join(fromDir, n), path.join(toDir, n));
  await writeFile(path.join(toDir, 'index.json'), listing);
}

// The built-in models' index.json (build/models), or null when nothing was exported.
function readBuiltInIndex(fromDir) {
  const indexPath = path.join(fromDir, 'index.json');
  return existsSync(indexPath) ? JSON.parse(readFileSync(indexPath, 'utf8')) : null;
}

// Models: index.json and the files it names, the built-in models first, then the extra
// folders' (site-models.js). Missing built-in models are a warning: the page then says so
// instead of the build failing for people who only work on the UI.
async function copyModels(fromDir, index, extras, toDir, warn) {
  await mkdir(toDir, { recursive: true });
  if (!index) warn(`no ${path.join(fromDir, 'index.json')}: run the model export first; the page will report that no model is available`);
  // Every built model is carried, the text model too: the page downloads a model's files
  // only when the visitor chooses it (docs/text.md, "What text adds to the site").
  const builtIn = index?.models ?? [];
  for (const m of builtIn) {
    for (const f of siteFiles(m)) {
      const from = path.join(fromDir, f);
      if (existsSync(from)) await copyIfChanged(from, path.join(toDir, f));
      else warn(`model file ${from} listed in index.json is missing`);
    }
  }
  for (const { dir, entry } of extras) for (const f of siteFiles(entry)) await copyIfChanged(path.join(dir, f), path.join(toDir, f));
  const models = [...builtIn, ...extras.map((e) => e.entry)];
  // The files of a model no longer listed (an extra folder left out of this build) go.
  const listed = new Set(['index.json', ...models.flatMap(siteFiles)]);
  for (const name of await readdir(toDir)) if (!listed.has(name)) await rm(path.join(toDir, name), { recursive: true, force: true });
  const text = JSON.stringify({ ...index, models }, null, 2) + '\n';
  const indexPath = path.join(toDir, 'index.json');
  if (!existsSync(indexPath) || readFileSync(indexPath, 'utf8') !== text) await writeFile(indexPath, text);
}

// ort/v<version>/ with onnxruntime-web's files, ort/<entry> re-exporting each entry, and
// nothing else (an older version's folder goes).
async function copyOrt(packageDir, outDir) {
  const { version } = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8'));
  const folder = `v${version}`;
  for (const f of ORT_FILES) await copyIfChanged(path.join(packageDir, 'dist', f), path.join(outDir, folder, f));
  for (const entry of ORT_ENTRIES) {
    const from = JSON.stringify(`./${folder}/${entry}`);
    await writeFile(path.join(outDir, entry),
      `// onnxruntime-web ${version} (scripts/build/site.js)\nexport * from ${from};\nexport { default } from ${from};\n`);
  }
  const keep = new Set([folder, ...ORT_ENTRIES]);
  for (const name of await readdir(outDir)) if (!keep.has(name)) await rm(path.join(outDir, name), { recursive: true, force: true });
}

// The build setting VITREL_MODEL_ORIGINS (origins, space- or comma-separated, e.g.
// "https://models.example.org") → embed.html's allow-list of other origins whose models
// ?model= may name; unset, the iframe runs this site's own models only.
export function modelOrigins(setting = '') {
  return setting.split(/[\s,]+/).filter(Boolean).map((text) => {
    let url;
    try { url = new URL(text); } catch { url = null; }
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== text.replace(/\/$/, '')) {
      throw new Error(`VITREL_MODEL_ORIGINS: "${text}" is not an origin (scheme://host[:port], e.g. https://models.example.org)`);
    }
    return url.origin;
  });
}

// Each module script in a page's head gets a <link rel="modulepreload"> per bundle it
// imports statically, directly or not (`imports`: bundleScripts'), right after it: the
// browser then requests them all at once instead of one import level per round trip (the
// page's app.js → vit-relevance.js → its shared chunks made the model's init later: issue
// 30). The body is left as written (docs.html shows its live examples' markup as code).
export function withModulePreloads(html, imports) {
  const end = html.indexOf('</head>');
  const head = html.slice(0, end).replace(/^([ \t]*)<script type="module" src="([^"]+)"><\/script>\n/gm, (tag, indent, src) => {
    const reached = new Set([src]);
    const visit = (file) => (imports.get(file) ?? []).forEach((f) => { if (!reached.has(f)) { reached.add(f); visit(f); } });
    visit(src);
    reached.delete(src);
    return tag + [...reached].map((f) => `${indent}<link rel="modulepreload" href="${f}">\n`).join('');
  });
  return head + html.slice(end);
}

// The pages as written: no import map (the bundles hold the runtime, and the site's
// Content-Security-Policy runs no inline script; only the sources' server adds one:
// scripts/import-map.js).
async function copyPages(webDir, out, imports, modelOriginsSetting) {
  for (const name of (await readdir(webDir)).filter((n) => n.endsWith('.html'))) {
    let html = withModulePreloads(await readFile(path.join(webDir, name), 'utf8'), imports);
    if (name === 'embed.html') html = withModelOrigins(html, modelOriginsSetting);
    await writeFile(path.join(out, name), html);
  }
}

function withModelOrigins(html, setting) {
  const meta = '<meta name="vit-relevance-model-origins" content="">';
  if (!html.includes(meta)) throw new Error(`web/embed.html lacks ${meta}`);
  return html.replace(meta, meta.replace('content=""', `content="${modelOrigins(setting).join(' ')}"`));
}

// `models`: the extra model folders (the build setting VITREL_MODELS), checked first.
export async function buildSite(paths, { models = process.env.VITREL_MODELS } = {}) {
  const index = readBuiltInIndex(paths.models);
  const extras = extraModels(models, index?.models);
  const warnings = [];
  const warn = (msg) => { warnings.push(msg); console.warn(`build: site: warning: ${msg}`); };
  const out = paths.site;
  const webDir = path.join(paths.root, 'web');
  // The page's own code is small: rebuild it from scratch so deleted files disappear (lib/,
  // page/ and runtime/ are folders of builds that copied the modules).
  for (const d of ['lib', 'page', 'runtime']) await rm(path.join(out, d), { recursive: true, force: true });
  for (const f of await readdir(out).catch(() => [])) if (/\.js(\.map)?$/.test(f)) await rm(path.join(out, f));
  // The top-level scripts become bundles; lib/ and page/ live inside them; the pages get
  // their copies; the rest (styles, type declarations, the examples shown as code) is copied.
  await copyTree(webDir, out, (n, dir) => (dir ? n !== 'lib' && n !== 'page' : !/\.(js|html)$/.test(n)));
  await copyTree(path.join(webDir, 'examples'), path.join(out, 'examples'));
  const imports = await bundleScripts({ webDir, outDir: out });
  await copyPages(webDir, out, imports, process.env.VITREL_MODEL_ORIGINS);

  // Where web/lib/site-files.js looks for the core.
  // Its glue is the browsers' own (no Node branches); the .wasm is the one both glues load.
  const coreFiles = { 'vit_relevance_core.mjs': 'web/vit_relevance_core.mjs', 'vit_relevance_core.wasm': 'vit_relevance_core.wasm' };
  for (const [f, built] of Object.entries(coreFiles)) {
    const from = path.join(paths.wasm, built);
    const to = path.join(out, 'build', 'wasm', f);
    if (!existsSync(from)) warn(`missing ${from}: run \`npm run build -- WebAssembly\``);
    else if (f.endsWith('.mjs')) await minifyModule(from, to);
    else await copyIfChanged(from, to);
  }

  await copyOrt(path.join(paths.root, 'node_modules', 'onnxruntime-web'), path.join(out, 'ort'));

  await copyModels(paths.models, index, extras, path.join(out, 'models'), warn);
  await copySamples(paths.sampleImages, path.join(out, 'samples'), warn);
  // Netlify and Cloudflare Pages read the response headers from here (docs/hosting.md).
  await writeFile(path.join(out, '_headers'), headersFile());
  await writeFile(path.join(out, 'build-info.json'),
    JSON.stringify({ built: new Date().toISOString(), warnings }, null, 1) + '\n');
  return { out, warnings };
}
