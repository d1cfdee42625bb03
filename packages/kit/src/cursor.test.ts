import { createCursorCodec, queryFingerprint } from './cursor';

describe('cursor codec', () => {
  const codec = createCursorCodec('s'.repeat(32));
  const fp = queryFingerprint(['contacts', 'ws', ['-created_at']]);
  const position = { values: ['2026-05-15T10:00:00.000Z', null, 3], id: '0190a0b0-0000-7000-8000-000000000001' };

  test('round-trips a position', () => {
    expect(codec.decode(fp, codec.encode(fp, position))).toEqual(position);
  });

  test('is opaque: base64url segments only', () => {
    expect(codec.encode(fp, position)).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  test('refuses a tampered payload', () => {
    const cursor = codec.encode(fp, position);
    const [payload, signature] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify([1, fp, ['2000-01-01T00:00:00.000Z', null, 3], position.id])).toString('base64url');
    expect(() => codec.decode(fp, `${forged}.${signature}`)).toThrow(/malformed/);
    expect(() => codec.decode(fp, `${payload}.${signature}x`)).toThrow(/malformed/);
  });

  test('refuses a cursor signed with another secret', () => {
    const other = createCursorCodec('t'.repeat(32));
    expect(() => codec.decode(fp, other.encode(fp, position))).toThrow(/malformed/);
  });

  test('refuses a cursor from another query', () => {
    const cursor = codec.encode(fp, position);
    expect(() => codec.decode(queryFingerprint(['contacts', 'ws', ['last_name']]), cursor)).toThrow(/does not belong/);
  });

  test.each(['', 'abc', 'a.b.c', '!!!.???', 'x'.repeat(3000)])('refuses garbage %p', (garbage) => {
    expect(() => codec.decode(fp, garbage)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });

  test('needs a real secret', () => {
    expect(() => createCursorCodec('short')).toThrow();
  });
});
