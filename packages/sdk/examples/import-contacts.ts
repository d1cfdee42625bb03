/**
 * Imports contacts from a CSV file, showing progress, then a summary of the rows the API refused.
 *
 *   CRM_API_KEY=svc_live_... node examples/import-contacts.ts contacts.csv
 *
 * The header row names contact fields (first_name, last_name, email, company_name, country,
 * source, ...; any other column is kept as a custom field). Rate limits are waited out by the SDK;
 * a refused row (a duplicate email, an invalid field) is reported and the import goes on.
 */
import { readFileSync } from 'node:fs';
import { CrmApiError, type Schema, createCrmClient } from '@crm/sdk';

const file = process.argv[2];
if (!file) throw new Error('usage: node examples/import-contacts.ts <file.csv>');
const crm = createCrmClient({ baseUrl: process.env.CRM_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.CRM_API_KEY ?? '' });

const [header = [], ...rows] = parseCsv(readFileSync(file, 'utf8'));
const refusals: { row: number; status: number; code: string; message: string; fields: string[] }[] = [];
let imported = 0;

for (const [index, values] of rows.entries()) {
  // Empty cells are left out; numbers the API wants as numbers are sent as numbers.
  const body = Object.fromEntries(
    header.flatMap((column, i) => (values[i] ? [[column, column === 'priority' ? Number(values[i]) : values[i]]] : [])),
  ) as Schema<'ContactCreate'>;
  try {
    await crm.POST('/v1/contacts', { body });
    imported++;
  } catch (error) {
    if (!(error instanceof CrmApiError) || error.status >= 500) throw error; // not the row's fault: stop
    // 422 lists every failing {field, message}; a 409 names the field that collided.
    const details = error.details as { field: string }[] | { field?: string } | undefined;
    const fields = Array.isArray(details) ? details.map((d) => d.field) : details?.field ? [details.field] : [];
    refusals.push({ row: index + 2, status: error.status, code: error.code, message: error.message, fields });
  }
  process.stdout.write(`\rimporting: ${index + 1}/${rows.length} rows, ${imported} imported, ${refusals.length} refused`);
}
process.stdout.write('\n');

console.log(`done: ${imported} imported, ${refusals.length} refused of ${rows.length} rows`);
const byCode = Map.groupBy(refusals, (r) => `${r.status} ${r.code}`);
for (const [code, list] of byCode) {
  console.log(`  ${code}: ${list.length} row(s)`);
  for (const r of list) console.log(`    row ${r.row}: ${r.message}${r.fields.length ? ` (${r.fields.join(', ')})` : ''}`);
}

/** RFC 4180: commas, quotes doubled inside quoted fields, CRLF or LF. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(field), (field = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field), (field = '');
      if (row.some((v) => v !== '')) rows.push(row);
      row = [];
    } else field += c;
  }
  row.push(field);
  if (row.some((v) => v !== '')) rows.push(row);
  return rows;
}
