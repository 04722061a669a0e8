// The browser tests' record of a text typed in the page (page-text.test.js and
// page-text-busy.test.js): every change of the text whose map is drawn
// (body[data-text-explained]), in order, and what that order must be.
import assert from 'node:assert/strict';

// Starts recording, in the page, each text whose map is drawn (window.__explained).
export function recordExplained(page) {
  return page.evaluate(() => {
    window.__explained = [];
    new MutationObserver(() => {
      const t = document.body.dataset.textExplained;
      if (t !== undefined && t !== window.__explained.at(-1)) window.__explained.push(t);
    }).observe(document.body, { attributes: true, attributeFilter: ['data-text-explained'] });
  });
}

// The texts drawn while `sentence` was typed: more than the final one, each a prefix of it
// typed later than the one before (no older text drawn after a newer one), the last the
// sentence itself.
export async function assertFollowedTyping(page, sentence) {
  const seen = await page.evaluate(() => window.__explained);
  assert.equal(seen.at(-1), sentence);
  assert.ok(seen.length >= 2, `the map follows the text while it is typed, not only at its end: ${JSON.stringify(seen)}`);
  for (const [i, t] of seen.entries()) {
    assert.ok(sentence.startsWith(t), `"${t}" is a text that was typed`);
    if (i) assert.ok(t.length > seen[i - 1].length, `"${t}" shown after the newer "${seen[i - 1]}"`);
  }
}
