/**
 * The columns of `rows`, for a statement that takes one array per column (`unnest($1::uuid[], …)`):
 * each row is written once, in the statement's column order, and the arrays cannot drift apart.
 * Every row must have the first one's width: a short row would leave `unnest` to pad with NULLs.
 */
export function columnsOf(rows: readonly (readonly unknown[])[]): unknown[][] {
  const width = rows[0]?.length ?? 0;
  const columns: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) {
    if (row.length !== width) throw new Error(`a row of ${row.length} values among rows of ${width}`);
    row.forEach((value, column) => columns[column]!.push(value));
  }
  return columns;
}
