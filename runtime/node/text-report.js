// @ts-check
// Node-only: DIR/report.html of `explain --text`, a page that opens from disk on its own:
// each text with every method's token colours, for each explained class, and the classes'
// probabilities. No script at all; its one <style> element is allowed by its hash in the
// page's Content-Security-Policy (default-src 'none'), as strict as the site's headers.
// Colours: runtime/text-colours.js (the element's too); each token's value is in its title.
import { createHash } from 'node:crypto';
import { scaleFor } from '../map-scale.js';
import { stepColours, valueSteps } from '../text-colours.js';

const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// The colour steps' CSS classes .l0 … .l20 (runtime/text-colours.js); dark steps get white text.
const stepStyles = (core) => stepColours(core).map(({ rgb, light }, i) => `.l${i}{background:${rgb}${light ? '' : ';color:#fff'}}`).join('\n');

// The text, each token's characters coloured by its step (whitespace between them not);
// [CLS] and [SEP] have no characters: their values are said after the text.
function coloured(core, entry, map, scale) {
  const step = valueSteps(core, map.data, scale);
  const { text, tokens, offsets } = entry;
  let html = '';
  let at = 0;
  const specials = [];
  tokens.forEach((token, i) => {
    const [s, e] = offsets[i];
    if (e <= s) {
      specials.push(`${escapeHtml(token)} ${map.data[i].toPrecision(3)}`);
      return;
    }
    if (s > at) html += escapeHtml(text.slice(at, s));
    html += `<span class="t l${step[i]}" title="${escapeHtml(token)}: ${map.data[i].toPrecision(4)}">${escapeHtml(text.slice(s, e))}</span>`;
    at = Math.max(at, e);
  });
  const end = entry.truncated ? entry.truncated.at : text.length;
  if (at < end) html += escapeHtml(text.slice(at, end));
  if (entry.truncated) html += ` <span class="cut">[… ${text.length - end} characters cut: not explained]</span>`;
  return `<p class="text">${html}</p><p class="specials">${specials.join(' · ')}</p>`;
}

function targetHtml(core, entry, t) {
  const name = (c) => `${escapeHtml(c.label)} (${(c.prob * 100).toFixed(1)}%, rank ${c.rank})`;
  const rows = Object.entries(t.maps).map(([m, map]) => {
    const scale = scaleFor('auto', m, Boolean(t.contrast));
    return `<section><h4>${escapeHtml(m)} <small>${scale} scale</small></h4>${coloured(core, entry, map, scale)}</section>`;
  });
  return `<h3>Why ${name(t)}${t.contrast ? ` rather than ${name(t.contrast)}` : ''}</h3>\n${rows.join('\n')}`;
}

function entryHtml(core, entry, n) {
  const probs = entry.top5.map((c) => `<tr><td>${escapeHtml(c.label)}</td><td><meter min="0" max="1" value="${c.prob}"></meter></td><td>${(c.prob * 100).toFixed(1)}%</td></tr>`);
  return `<article><h2>${n === null ? 'Text' : `Text ${n}`}</h2>
<table class="probs">${probs.join('')}</table>
${entry.targets.map((t) => targetHtml(core, entry, t)).join('\n')}
</article>`;
}

const STYLE_BASE = `body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
.text{white-space:pre-wrap;line-height:1.9}.t{border-radius:3px;padding:1px 0}
.specials,small,.cut{color:#666;font-size:.85em}section{margin:0 0 1rem}h4{margin:.5rem 0 0}
.probs td{padding:0 .5rem}article{border-top:1px solid #ccc;margin-top:1.5rem}`;

// docs: the maps.json entries (runtime/text-maps-json.js textEntry) → the page's HTML.
export function textReportHtml(core, { model, startLayer, entries }) {
  const style = `${STYLE_BASE}\n${stepStyles(core)}`;
  const hash = createHash('sha256').update(style).digest('base64');
  const body = entries.map((e, i) => entryHtml(core, e, entries.length > 1 ? i + 1 : null)).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-${hash}'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vit-relevance: ${escapeHtml(model)}</title>
<style>${style}</style>
</head>
<body>
<h1>${escapeHtml(model)}</h1>
<p>Relevance of each token (start layer ${startLayer}). Red: for the class; blue (signed maps): against it. A token's value is in its tooltip.</p>
${body}
</body>
</html>
`;
}
