// @ts-check
// The patch grid of a token sequence: S = specialTokens + rows * cols. Shared by the core
// wrapper and the CLI so both infer the same default.

// A square grid when S - specialTokens is a perfect square, else null.
export function inferSquareGrid(tokens, specialTokens = 1) {
  const patches = tokens - specialTokens;
  if (!Number.isInteger(patches) || patches < 1) return null;
  const side = Math.round(Math.sqrt(patches));
  return side * side === patches ? [side, side] : null;
}

// Parses "14x14" / "14X14" / "14,14" into [14, 14]; null when malformed.
export function parseGrid(text) {
  const m = /^\s*(\d+)\s*[xX×,]\s*(\d+)\s*$/.exec(String(text));
  if (!m) return null;
  const grid = [Number(m[1]), Number(m[2])];
  return grid.every((v) => v >= 1) ? grid : null;
}
