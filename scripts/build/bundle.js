// The site's scripts as minified bundles (esbuild): each top-level script of web/ (the
// page, the Worker, the public API, the element, the iframe route) becomes one file at the
// top of dist/site, with its lib/ and runtime/ modules inside it (the element's scripts
// share theirs through chunks: EMBED_ENTRIES). Visitors then download a few small files
// instead of ~30 modules, and docs authors copy a few files, not folders.
//
// Bundling changes no path: every import resolves as written (the runtime's package name
// through package.json "exports"), and a URL a script builds from its own location is built
// in a top-level script only (web/lib/site-files.js), which sits at the same depth in web/
// and in dist/site. One rule keeps the bundles behaving like the modules they replace:
// an import of another entry (the element and the page's modules import vit-relevance.js)
// stays an import, so a page that loads the element and the API runs ONE copy of the API,
// whose module state is the page's one shared Worker. Such an import names the entry's
// bundle, which sits beside every bundle (the page's web/page/ modules name ../, its
// web/page/lib/ modules ../../).
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build, transform } from 'esbuild';
import { minify } from 'terser';

// The language the sources use (class private methods and fields); browsers with module Workers have it.
const TARGET = ['es2022'];
// The element's scripts, bundled together with their shared modules split out into
// vit-relevance-shared-<hash>.js chunks: the API and the Worker both run the core's
// runtime (and the element and the API both draw overlays), so an embedding page downloads
// that code once instead of inside each bundle. The other entries stay single files.
const EMBED_ENTRIES = ['vit-relevance-element.js', 'vit-relevance.js', 'worker.js'];

// → the bundles' static imports: file name → the file names it imports before it runs.
export async function bundleScripts({ webDir, outDir }) {
  const entries = (await readdir(webDir, { withFileTypes: true }))
    .filter((e) => e.isFile() && e.name.endsWith('.js')).map((e) => path.join(webDir, e.name));
  const entrySet = new Set(entries);
  const otherEntries = {
    name: 'other-entries',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        const file = path.resolve(args.resolveDir, args.path);
        return args.kind !== 'entry-point' && entrySet.has(file) ? { path: `./${path.basename(file)}`, external: true } : undefined;
      });
    },
  };

  const options = {
    outdir: outDir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: TARGET,
    minify: true,
    sourcemap: 'linked',
    external: ['node:*'], // runtime/core-module.js's Node branch, never taken in a browser
    // A browser has no `process`: runtime/core-module.js's Node branch is left out.
    define: { process: 'undefined' },
    plugins: [otherEntries],
    logLevel: 'silent',
    metafile: true,
  };
  const isEmbed = (file) => EMBED_ENTRIES.includes(path.basename(file));
  const results = [
    await build({ ...options, entryPoints: entries.filter((e) => !isEmbed(e)) }),
    await build({ ...options, entryPoints: entries.filter(isEmbed), splitting: true, chunkNames: 'vit-relevance-shared-[hash]' }),
  ];
  for (const w of results.flatMap((r) => r.warnings)) console.warn(`build: bundle: warning: ${w.text}`);
  // Every output sits at the top of outDir, so a file name names it, in an import too.
  const outputs = results.flatMap((r) => Object.entries(r.metafile.outputs)).filter(([f]) => f.endsWith('.js'));
  for (const [f] of outputs) await compress(path.resolve(f));
  return new Map(outputs.map(([f, { imports }]) => [path.basename(f),
    imports.filter((i) => i.kind === 'import-statement').map((i) => path.basename(i.path))]));
}

// Terser's compressor over esbuild's output: esbuild minifies in one fast pass, terser's
// repeated passes (inlining, dead branches, shorter forms) take a further ~4 % off the
// gzipped scripts (docs/experiments.md), which the element's 40 KB needs. Same language,
// module scope; the source map is carried through (`map`: the file's own, or none) and
// written beside the file, which does not name it: the five `sourceMappingURL` comments
// were 0.2 KB of the element's 40 (a browser's devtools take the map when given it).
const TERSER = { module: true, ecma: 2022, compress: { passes: 2 }, mangle: true, format: { comments: false } };

const terse = (code, name, map) => minify({ [name]: code }, { ...TERSER, sourceMap: map ? { content: map } : false });

// A bundle and its linked source map, compressed in place.
async function compress(file) {
  const name = path.basename(file);
  const map = await readFile(`${file}.map`, 'utf8');
  const out = await terse(await readFile(file, 'utf8'), name, map);
  await writeFile(file, out.code);
  await writeFile(`${file}.map`, out.map);
}

// The core's Emscripten glue as shipped: its locals renamed and whitespace dropped (emcc
// leaves long names). The CLI keeps loading build/wasm's own copy.
export async function minifyModule(from, to) {
  const { code } = await transform(await readFile(from, 'utf8'), { minify: true, format: 'esm', target: TARGET });
  await mkdir(path.dirname(to), { recursive: true });
  await writeFile(to, (await terse(code, path.basename(to), null)).code);
}
