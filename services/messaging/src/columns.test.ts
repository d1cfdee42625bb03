import fc from 'fast-check';
import { columnsOf } from './columns';

describe('columnsOf', () => {
  test('turns rows into one array per column, in row order', () => {
    expect(columnsOf([['a', 1, null], ['b', 2, true]])).toEqual([['a', 'b'], [1, 2], [null, true]]);
    expect(columnsOf([])).toEqual([]);
  });

  test('every value lands at its row and column', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }).chain((w) => fc.array(fc.array(fc.anything(), { minLength: w, maxLength: w }), { minLength: 1 })), (rows) => {
        const columns = columnsOf(rows);
        expect(columns).toHaveLength(rows[0]!.length);
        rows.forEach((row, r) => row.forEach((value, c) => expect(columns[c]![r]).toBe(value)));
      }),
    );
  });

  test('a row of another width is refused, not padded', () => {
    expect(() => columnsOf([['a', 1], ['b']])).toThrow('a row of 1 values among rows of 2');
    expect(() => columnsOf([['a'], ['b', 2]])).toThrow('a row of 2 values among rows of 1');
  });
});
