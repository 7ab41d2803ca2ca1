/** The simulator's bounded collections keep exactly their newest entries, however many come. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedMap } from '../sandbox/bounded.ts';

test('BoundedMap forgets its oldest keys first, past its bound, across many compactions', () => {
  const map = new BoundedMap<number, string>(3);
  for (let i = 0; i < 20; i++) map.set(i, `v${i}`);
  assert.equal(map.size, 3);
  assert.deepEqual([...map.values()], ['v17', 'v18', 'v19']);
  assert.equal(map.has(16), false);
  assert.equal(map.get(19), 'v19');
});

test('BoundedMap: a key set again keeps its first place, as in a Map, and counts once', () => {
  const map = new BoundedMap<string, number>(2);
  map.set('a', 1);
  map.set('b', 2);
  map.set('a', 3);
  assert.equal(map.size, 2);
  map.set('c', 4);
  assert.deepEqual([...map.values()], [2, 4]);
  assert.equal(map.has('a'), false);
  map.set('d', 5);
  map.set('e', 6);
  assert.deepEqual([...map.values()], [5, 6]);
});
