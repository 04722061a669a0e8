// `explain --text --method attattr`: Self-Attention Attribution's map of a text, which reads
// Attr of every block from the attribution graphs (runtime/attribution-maps.js, as for
// photos) rather than from the explainer's run. Adds each explained class's attattr map
// and its word map (the max of its pieces' scores, METHODS.md) to the run's targets; a
// contrast is the core's contrast of the two classes' maps, as for every other method.
import { targetAttributionMaps } from '../runtime/attribution-maps.js';
import { openAttributionFiles } from '../runtime/node/open-attribution.js';
import { readVocab } from '../runtime/node/open-text.js';
import { textDims } from '../runtime/text-metadata.js';
import { textTokenizer, tokenizeText } from '../runtime/text-cache.js';

// → { add(result, methods, startLayer), close() }: attribution graphs and tokenizer opened once
// for every text of the run.
export async function openTextAttribution({ core, graph, metadata, threads }) {
  const tokenizer = textTokenizer(core, await readVocab(graph, metadata), metadata);
  let attribution;
  try {
    attribution = await openAttributionFiles(graph, metadata, { threads });
  } catch (err) {
    tokenizer.free();
    throw err;
  }
  const { maxTokens } = textDims(metadata);
  return {
    // result: a text's explanation (the API's); its targets get the methods' maps in place.
    async add(result, methods, startLayer) {
      const { encoding } = tokenizeText(tokenizer, result.text, maxTokens, 'the text');
      const maps = await targetAttributionMaps({
        attribution, core, metadata, pixels: BigInt64Array.from(result.ids, BigInt), targets: result.targets, methods, startLayer,
      });
      result.targets.forEach((target, i) => {
        for (const [m, map] of Object.entries(maps[i])) {
          target.maps[m] = map;
          target.wordMaps[m] = tokenizer.wordMap(map, encoding);
        }
      });
    },
    async close() {
      tokenizer.free();
      await attribution.release();
    },
  };
}
