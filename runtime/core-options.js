// @ts-check
// The option bag core.computeMaps and core.relevanceRow hand the bindings (wasm/options.cpp):
// an image's patch grid (given, or inferred from the token count) or a text's S tokens,
// and the start layer ('last' = the last block of the tensors given, any kind).
import { inferSquareGrid } from './token-grid.js';

// The per-block tensors (their first dim is B) and the [S] tensors of a text.
const BLOCK_TENSORS = ['attn', 'attn_grad', 'attn_rel', 'attr'];
const TOKEN_VECTORS = ['input_rel_classic', 'input_rel_attnlrp', 'input_rel_cp_lrp'];

/**
 * options.startLayer as the bindings read it: 'last' is the last block of the tensors given.
 * @param {number | 'last' | undefined} startLayer @param {{ shapes: Record<string, number[]> }} t
 */
export function resolveStartLayer(startLayer, t) {
  if (startLayer !== 'last') return startLayer ?? 0;
  const blocks = BLOCK_TENSORS.map((id) => t.shapes[id]?.[0]).find((b) => b !== undefined);
  return blocks === undefined ? 0 : blocks - 1;
}

/**
 * The text layout of the bindings (wasm/options.cpp): S from the tensors given.
 * @param {{ shapes: Record<string, number[]>, tokens(): number | null }} t
 */
export function textLayout(t) {
  const S = t.tokens() ?? TOKEN_VECTORS.map((id) => t.shapes[id]?.[0]).find((s) => s !== undefined);
  if (S === undefined) throw new Error('no text tensor given: give at least one of attn, attn_grad, attn_rel, attn_rel_classic_last, attr, input_rel_classic, input_rel_attnlrp, input_rel_cp_lrp');
  return { gridRows: 0, gridCols: 0, specialTokens: 1, textTokens: S };
}

/**
 * The layout/option bag the bindings read (wasm/options.cpp) for computeMaps' options.
 * @param {any} options @param {{ shapes: Record<string, number[]>, tokens(): number | null }} t
 */
export function coreOptions(options, t) {
  const { grid, specialTokens = 1, queryToken = -1, pool = 'cls', kind = 'image' } = options;
  const startLayer = resolveStartLayer(options.startLayer, t);
  if (kind === 'text') return { ...textLayout(t), startLayer, queryToken, pool };
  if (kind !== 'image') throw new TypeError(`options.kind must be 'image' or 'text', got ${JSON.stringify(kind)}`);
  let rows = 0;
  let cols = 0;
  if (grid !== undefined && grid !== null) {
    if (!Array.isArray(grid) || grid.length !== 2) throw new TypeError('options.grid must be [rows, cols]');
    [rows, cols] = grid;
  } else {
    const S = t.tokens();
    if (S !== null) {
      const inferred = inferSquareGrid(S, specialTokens);
      if (!inferred) {
        throw new Error(`cannot infer the patch grid: ${S} tokens minus ${specialTokens} special ` +
          'token(s) is not a square number; give options.grid = [rows, cols]');
      }
      [rows, cols] = inferred;
    }
  }
  return { gridRows: rows, gridCols: cols, specialTokens, startLayer, queryToken, pool };
}
