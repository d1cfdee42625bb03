import { isUuid, newId } from './ids';

describe('newId', () => {
  test('is a UUIDv7 with the RFC 9562 variant, carrying the time it was minted', () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
    const msecs = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    expect(msecs).toBeGreaterThanOrEqual(before);
    // Within one millisecond the counter may carry the time on by one.
    expect(msecs).toBeLessThanOrEqual(after + 1);
  });

  test('ids minted in a row are unique and sort in the order they were minted, across pool refills', () => {
    // 100,000 ids: many per millisecond, and 390 refills of the 4 KiB random pool.
    const ids = Array.from({ length: 100_000 }, newId);
    expect(new Set(ids).size).toBe(ids.length);
    const sorted = [...ids].sort();
    expect(sorted).toEqual(ids);
  });

  test('the random part differs from id to id', () => {
    const tails = new Set(Array.from({ length: 1_000 }, () => newId().slice(24)));
    expect(tails.size).toBe(1_000);
  });
});
