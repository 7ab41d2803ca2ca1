/** The simulator's bounded collections keep exactly their newest entries, however many come. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Bounded, BoundedMap, ByteBudget } from '../sandbox/bounded.ts';

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

test('Bounded keeps its newest entries that fit its bytes and the shared budget, always the newest, and counts the dropped', () => {
  const shared = new ByteBudget(250);
  const own = new Bounded<number>(100, { sizeOf: (n) => n, maxBytes: 150, shared });
  const other = new Bounded<number>(100, { sizeOf: (n) => n, maxBytes: 1000, shared });
  for (const n of [50, 50, 50, 60]) own.push(n);
  assert.deepEqual(own.snapshot(), { items: [50, 60], dropped: 2 });
  other.push(120);
  assert.equal(shared.used, 230);
  other.push(40);
  assert.deepEqual(other.snapshot(), { items: [40], dropped: 1 }, 'over the shared budget, the list that records drops its own oldest');
  assert.equal(shared.used, 150);
  own.push(400);
  assert.deepEqual(own.snapshot(), { items: [400], dropped: 4 });
  own.clear();
  assert.equal(shared.used, 40, 'a cleared list gives its bytes back');
}); // prettier-ignore
