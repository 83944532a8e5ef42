import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import { newId } from '../src/ids.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Heap bytes each id still takes while `count` of them are held. */
function heldPerId(make: () => string, count = 20_000): number {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const held = Array.from({ length: count }, make);
  collectGarbage();
  const perId = (process.memoryUsage().heapUsed - before) / count;
  expect(new Set(held).size).to.equal(count);
  return perId;
}

describe('newId', () => {
  it('when ids are made, then each is a lowercase UUID v4 and no two are alike', () => {
    const ids = Array.from({ length: 1000 }, newId);
    for (const id of ids) expect(id).to.match(UUID_V4);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('when ids are held, then each takes a fraction of the heap a fresh randomUUID() takes', () => {
    const flat = heldPerId(newId);
    const pieced = heldPerId(() => randomUUID());
    expect(flat).to.be.below(pieced / 3);
  });
});
