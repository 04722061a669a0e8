// The build setting VITREL_MODEL_ORIGINS (issue 29): the origins embed.html may take models
// from besides its own, checked when the site is built (the browser side runs in
// tests/browser/embed-honest.test.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { modelOrigins } from '../../scripts/build/site.js';

test('origins, space- or comma-separated, a trailing slash allowed; unset: none', () => {
  assert.deepEqual(modelOrigins(undefined), []);
  assert.deepEqual(modelOrigins(''), []);
  assert.deepEqual(modelOrigins('https://models.example.org, http://localhost:8081/'), ['https://models.example.org', 'http://localhost:8081']);
});

test('anything but an origin stops the build with the value named', () => {
  for (const bad of ['models.example.org', 'https://example.org/models/', 'file:///models', 'javascript:alert(1)', 'https://a.org?x']) {
    assert.throws(() => modelOrigins(bad), { message: `VITREL_MODEL_ORIGINS: "${bad}" is not an origin (scheme://host[:port], e.g. https://models.example.org)` }, bad);
  }
});
