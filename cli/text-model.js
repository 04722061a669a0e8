// What `explain --text` and `attribute --text` share: the text model (--model, else the
// default one npm run build exports), its metadata checked and its kind a text model's, and
// bad input as one line with exit 2 (as a bad command line), all before any graph opens.
import path from 'node:path';
import { existsSync } from 'node:fs';
import { UserError } from '../runtime/errors.js';
import { DEFAULT_TEXT_MODEL } from '../runtime/node/index.js';
import { explainerGraphFile, metadataPathFor, readMetadata } from '../runtime/node/open-explainer.js';
import { validateMetadata } from '../runtime/metadata.js';
import { kindMismatch } from '../runtime/text-metadata.js';

// A bad input: one line, exit 2, as a bad command line.
export const badInput = (err) => (err instanceof UserError ? err : new UserError(err.message, { exitCode: 2 }));
export const checked = async (fn) => {
  try {
    return await fn();
  } catch (err) {
    throw badInput(err);
  }
};

// The graph and its metadata: --model, else the default text model.
export async function textModel(opts) {
  const model = opts.model ?? DEFAULT_TEXT_MODEL;
  if (!existsSync(model)) {
    throw new UserError(opts.model === undefined
      ? `the default text model ${path.relative(process.cwd(), model) || model} is not built: npm run build exports it (or give --model DIR)`
      : `cannot read model ${opts.model}: no such file`);
  }
  const graph = await checked(() => explainerGraphFile(model));
  const metadata = await checked(async () => validateMetadata(await readMetadata(metadataPathFor(graph), graph), `metadata of ${path.basename(graph)}`));
  const wrong = kindMismatch(metadata, 'text', path.basename(graph, '.onnx'));
  if (wrong) throw new UserError(wrong, { exitCode: 2 });
  return { graph, metadata };
}
