// `vit-relevance attribute --text "…"`: Self-Attention Attribution (Hao et al., AAAI 2021;
// METHODS.md) of a text on a text model (default: build/models/bert-mini-sst2-movies): Attr[b]
// per block from the attribution graphs, then with the core the per-head importance, the
// attribution tree over the tokens and the attattr map (with its word map). Writes
// DIR/attribution.json, DIR/heads.svg (the head-importance grid) and DIR/tree.svg (the tree
// as arcs over the tokens). Every input is checked before a graph opens (exit 2).
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { UsageError } from '../args.js';
import { loadCore } from '../../runtime/core.js';
import { parseBlocks, probabilityOf } from '../../runtime/attribution.js';
import { headGridSvg, legendColour, textTreeSvg } from '../../runtime/attribution-svg.js';
import { checkAttributionFiles, openAttributionFiles } from '../../runtime/node/open-attribution.js';
import { readVocab } from '../../runtime/node/open-text.js';
import { prepareOutDir } from '../../runtime/node/out-dir.js';
import { resolveClass } from '../../runtime/targets.js';
import { topK } from '../../runtime/topk.js';
import { tokenLayout } from '../../runtime/metadata.js';
import { textDims } from '../../runtime/text-metadata.js';
import { textTokenizer, tokenizeText, truncationNotice } from '../../runtime/text-cache.js';
import { checked, textModel } from '../text-model.js';

const FILES = ['attribution.json', 'heads.svg', 'tree.svg'];
// The attribution tree's threshold (the official attribution_tree.py's).
const TREE_THRESHOLD = 0.4;

// opts: attribute's parsed options (opts.text set); positionals: none expected.
export async function runTextAttribution(opts, positionals) {
  if (positionals.length) throw new UsageError(`give a photo or --text, not both (got ${positionals.join(' ')})`);
  if (opts.saveTensors) throw new UsageError('--save-tensors applies to photos, not texts');
  const { graph, metadata } = await textModel(opts);
  const B = metadata.architecture.blocks;
  const blocks = await checked(() => parseBlocks(opts.blocks, B));
  const classId = opts.class === undefined ? null : await checked(() => resolveClass(metadata, opts.class, '--class'));
  if (opts.startLayer >= B) throw new UsageError(`--start-layer must be < ${B} (the model's blocks), got ${opts.startLayer}`);
  await checked(() => checkAttributionFiles(graph, B));
  const core = await loadCore();
  if (!core.colormapIds.includes(opts.colormap)) throw new UsageError(`unknown colormap "${opts.colormap}"; known: ${core.colormapIds.join(', ')}`);
  const tokenizer = await checked(async () => textTokenizer(core, await readVocab(graph, metadata), metadata));
  try {
    const { maxTokens } = textDims(metadata);
    const { tokenized, encoding } = await checked(() => tokenizeText(tokenizer, opts.text, maxTokens, '--text'));
    await prepareOutDir(opts.out, FILES);
    const notice = truncationNotice(tokenized, maxTokens);
    if (notice) console.error(`note: ${notice}`);

    const attribution = await openAttributionFiles(graph, metadata, { threads: opts.threads });
    try {
      const started = performance.now();
      const { logits, hidden } = await attribution.hiddenStates(BigInt64Array.from(tokenized.ids, BigInt));
      const top5 = topK(logits, 5, metadata.labels).map(({ id, label, prob }) => ({ id, label, prob }));
      const target = classId ?? top5[0].id;
      const { attr, results } = await attribution.attributeBlocks(hidden, blocks, target, { steps: opts.steps });
      const elapsedMs = performance.now() - started;
      const pFull = probabilityOf(logits, target);
      const { heads: h } = metadata.architecture;
      const importance = core.headImportance(attr).data;
      const all = blocks.length === B;
      // [CLS] is the one token before the words, as a ViT's class token before the patches.
      const tree = all ? core.attributionTree(attr, TREE_THRESHOLD, 1) : null;
      const map = all ? core.computeMaps({ attr }, { methods: ['attattr'], ...tokenLayout(metadata), startLayer: opts.startLayer }).attattr : null;

      const colour = legendColour(core, opts.colormap);
      await writeFile(path.join(opts.out, 'heads.svg'), headGridSvg(importance, { blocks, heads: h, colour }));
      const colours = Array.from({ length: B }, (_, b) => colour(B > 1 ? b / (B - 1) : 0));
      if (tree) await writeFile(path.join(opts.out, 'tree.svg'), textTreeSvg(tree, { tokens: tokenized.tokens, colours }));
      const doc = {
        format: 'vit-relevance-attribution',
        model: metadata.name,
        ...tokenized,
        target: { id: target, label: metadata.labels[target], prob: pFull },
        top5,
        steps: opts.steps,
        startLayer: opts.startLayer,
        blocks: results.map((r, row) => ({
          block: r.block,
          headImportance: Array.from(importance.subarray(row * h, (row + 1) * h)),
          completeness: { sumAttr: r.attr.reduce((a, v) => a + v, 0), probFull: pFull, probZero: r.probs[0], gap: pFull - r.probs[0] },
        })),
        tree: tree && { threshold: TREE_THRESHOLD, ...tree, topToken: tokenized.tokens[tree.top] },
        attattr: map && { shape: map.shape, data: Array.from(map.data) },
        attattr_words: map && Array.from(tokenizer.wordMap(map, encoding)),
        timings: { attributionMs: Math.round(elapsedMs) },
      };
      if (!all) doc.note = 'the tree and the attattr map need every block (--blocks all)';
      await writeFile(path.join(opts.out, 'attribution.json'), `${JSON.stringify(doc, null, 1)}\n`);
      console.log(`attributed class ${target} (${metadata.labels[target]}) of a ${tokenized.tokens.length}-token text over ${blocks.length} block(s), m = ${opts.steps}`);
      if (tree) console.log(`attribution tree: top token "${tokenized.tokens[tree.top]}", ${tree.edges.length} edge(s)`);
      console.log(`wrote ${path.join(opts.out, 'attribution.json')}, heads.svg${tree ? ' and tree.svg' : ''} in ${opts.out}`);
      return 0;
    } finally {
      await attribution.release();
    }
  } finally {
    tokenizer.free();
  }
}
