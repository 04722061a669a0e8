// The Attribution panel's words (web/page/lib/attribution-panel.js): in each state, what to do
// next, and the block hint fitted to the model's depth.

// "all, or indices 0..11 such as 0,6,11" for a 12-block model; "0..3 such as 0,2,3" for 4.
export function blocksHint(blocks) {
  const picks = [...new Set([0, Math.floor(blocks / 2), blocks - 1])].join(',');
  return `all, or indices 0..${blocks - 1} such as ${picks}`;
}

// The status line when no run is going: { photo (a photo or text is there), text (it is a
// text), label (null: no class), blocks, done (blocks attributed for this input, class and m), steps }.
export function panelStatus({ photo, text = false, label, blocks, done, steps }) {
  if (!photo && text) return 'Type a text first; once it is explained, press Attribute to see which heads and token-to-token links mattered for its class.';
  if (!photo) return 'Choose a photo first; then press Attribute to see which heads and attention links mattered for its class.';
  if (label === null) return 'Choose a class, then press Attribute.';
  if (!done) return `Press Attribute to see which heads and attention links mattered for ${label} (${blocks} blocks, m = ${steps} steps each).`;
  if (done < blocks) {
    return `${label}: ${done} of ${blocks} blocks attributed (m = ${steps}). The attribution tree and the attattr map need every `
      + `block: set Blocks to "all" and press Attribute (only the ${blocks - done} missing are computed).`;
  }
  return `${label}: all ${blocks} blocks attributed (m = ${steps}). Hover a cell for a head's importance; move τ to prune the tree`
    + `${text ? ' (a new text needs a new run)' : ''}.`;
}
