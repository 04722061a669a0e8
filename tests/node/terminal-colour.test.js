// The CLI's colours: only on a terminal, never with NO_COLOR set (no-color.org), 24-bit
// where COLORTERM says so, else the 256-colour cube; dark backgrounds get white text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { colourSupported, onBackground } from '../../cli/terminal-colour.js';

test('colours only on a terminal without NO_COLOR', () => {
  assert.equal(colourSupported(/** @type {any} */ ({ isTTY: true }), {}), true);
  assert.equal(colourSupported(/** @type {any} */ ({ isTTY: true }), { NO_COLOR: '1' }), false);
  assert.equal(colourSupported(/** @type {any} */ ({ isTTY: true }), { NO_COLOR: '' }), true, 'an empty NO_COLOR does not count');
  assert.equal(colourSupported(/** @type {any} */ ({ isTTY: false }), {}), false);
});

test('24-bit or 256-colour backgrounds, readable text on them', () => {
  assert.equal(onBackground('mess', [200, 30, 40], { COLORTERM: 'truecolor' }), '\u001b[48;2;200;30;40;97mmess\u001b[0m');
  assert.equal(onBackground('mess', [255, 255, 255], {}), '\u001b[48;5;231;30mmess\u001b[0m');
  assert.equal(onBackground('mess', [0, 0, 0], {}), '\u001b[48;5;16;97mmess\u001b[0m');
});
