// The pages' import map, in one place: web/index.html, embed.html and docs.html carry none.
// Their modules import the runtime by package name (vit-relevance/runtime/<module>.js); the
// site's bundles hold the runtime (scripts/build/site.js), and the sources' server
// (scripts/serve-sources.js) puts this map, made from package.json "exports", into every
// page it serves, so a page as written resolves the names as Node does.
import { readFileSync } from 'node:fs';
import path from 'node:path';

// { imports: { 'vit-relevance/runtime/': '../runtime/' } }: each "exports" folder pattern
// of the runtime (`./runtime/*.js`) as a prefix, relative to web/.
export function importMap(root) {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const imports = {};
  for (const [key, target] of Object.entries(pkg.exports)) {
    const file = typeof target === 'string' ? target : target.default;
    if (!key.startsWith('./runtime/') || !key.endsWith('/*.js') || !file.endsWith('/*.js')) continue;
    imports[`${pkg.name}/${key.slice(2, -'*.js'.length)}`] = `../${file.slice(2, -'*.js'.length)}`;
  }
  return { imports };
}

// The page with the map before its first script (an import map must come before any
// module is loaded).
export function withImportMap(html, map) {
  const at = html.search(/[ \t]*<script[\s>]/);
  if (at < 0 || at > html.indexOf('</head>')) throw new Error('a page without a script in its head needs no import map');
  const indent = /^[ \t]*/.exec(html.slice(at))[0];
  return `${html.slice(0, at)}${indent}<script type="importmap">${JSON.stringify(map)}</script>\n${html.slice(at)}`;
}
