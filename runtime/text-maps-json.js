// @ts-check
// The maps.json of a text (`explain --text`), or of every line of a text file (a `texts`
// list):
//   { "model", "start_layer", "text", "tokens": [...], "ids": [...], "offsets": [[start, end], ...],
//     "words": [...], "truncated"?: { "tokens", "at" }, "top5": [...],
//     "targets": [ { "id", "label", "prob", "rank", "contrast"?, "maps": { "<method>": { "shape": [S], "data": [...] } },
//                    "word_maps": { "<method>": [...] } } ] }
// Float32 values are written as the shortest decimal that reads back the same, one map per
// line, so two runs write the same bytes. Environment-neutral.
import { mapText, floatsText } from './maps-json.js';

// A text's explanation (the API's TextExplainResult) → its maps.json entry.
export function textEntry(result) {
  const { text, tokens, ids, offsets, words, truncated, top5, targets } = result;
  return {
    text,
    tokens,
    ids,
    offsets,
    words,
    ...(truncated && { truncated }),
    top5: top5.map(({ id, label, prob }) => ({ id, label, prob })),
    targets: targets.map(({ maps, wordMaps, ...standing }) => ({ ...standing, maps, word_maps: wordMaps })),
  };
}

const INDENT = '  ';

function targetText(t, pad) {
  const { maps, word_maps: wordMaps, ...fields } = t;
  const inner = pad + INDENT + INDENT;
  const mapLines = Object.entries(maps).map(([m, map]) => `${inner}${JSON.stringify(m)}: ${mapText(map)}`);
  const wordLines = Object.entries(wordMaps).map(([m, data]) => `${inner}${JSON.stringify(m)}: [${floatsText(data)}]`);
  const block = (lines) => (lines.length ? `{\n${lines.join(',\n')}\n${pad}${INDENT}}` : '{}');
  const head = JSON.stringify(fields).slice(1, -1);
  return `${pad}{ ${head},\n${pad}${INDENT}"maps": ${block(mapLines)},\n${pad}${INDENT}"word_maps": ${block(wordLines)} }`;
}

// One object's fields, one per line; its targets (or texts) laid out as above.
function objectText(obj, pad) {
  const lines = Object.entries(obj).map(([k, v]) => {
    if (k === 'targets') return `${pad}${INDENT}"targets": [\n${v.map((t) => targetText(t, pad + INDENT + INDENT)).join(',\n')}\n${pad}${INDENT}]`;
    if (k === 'texts') return `${pad}${INDENT}"texts": [\n${v.map((e) => `${pad}${INDENT}${INDENT}${objectText(e, pad + INDENT + INDENT)}`).join(',\n')}\n${pad}${INDENT}]`;
    return `${pad}${INDENT}${JSON.stringify(k)}: ${JSON.stringify(v)}`;
  });
  return `{\n${lines.join(',\n')}\n${pad}}`;
}

// The file's text: one entry's fields at the top for one text, `texts` for several.
export function formatTextMapsJson(doc) {
  return `${objectText(doc, '')}\n`;
}
