// The byte-bounded cache of class tensors (runtime/tensor-cache.js): least recently used
// out first, the newest kept even alone over the limit, and every value freed as it leaves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TensorCache } from '../../runtime/tensor-cache.js';

function entries() {
  const freed = [];
  const entry = (name, bytes) => ({ name, bytes, free: () => freed.push(name) });
  return { freed, entry };
}

test('the least recently used entries leave once the bytes pass the limit', () => {
  const { freed, entry } = entries();
  const cache = new TensorCache(100);
  cache.set('a', entry('a', 40));
  cache.set('b', entry('b', 40));
  assert.equal(cache.get('a').name, 'a'); // a is now the most recent
  cache.set('c', entry('c', 40));
  assert.deepEqual(freed, ['b']);
  assert.equal(cache.get('b'), undefined);
  assert.deepEqual([...cache.map.keys()], ['a', 'c']);
  assert.equal(cache.bytes, 80);
});

test('the newest entry stays when it alone is over the limit', () => {
  const { freed, entry } = entries();
  const cache = new TensorCache(100);
  cache.set('a', entry('a', 30));
  cache.set('big', entry('big', 250));
  assert.deepEqual(freed, ['a']);
  assert.equal(cache.get('big').name, 'big');
  assert.equal(cache.bytes, 250);
});

test('replacing a key frees the old value; deleteWhere and clear free theirs', () => {
  const { freed, entry } = entries();
  const cache = new TensorCache(1000);
  cache.set('1 c5', entry('old', 10));
  cache.set('1 c5', entry('new', 20));
  cache.set('2 c5', entry('other photo', 30));
  assert.deepEqual(freed, ['old']);
  assert.equal(cache.bytes, 50);
  cache.deleteWhere((key) => key.startsWith('1 '));
  assert.deepEqual(freed, ['old', 'new']);
  cache.clear();
  assert.deepEqual(freed, ['old', 'new', 'other photo']);
  assert.equal(cache.bytes, 0);
  assert.equal(cache.map.size, 0);
});
