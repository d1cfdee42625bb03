import { type FieldType, parseDateTime } from '@crm/kit';
import { hasOwn } from './text';

/**
 * The contact-field test a branch node may carry instead of an email event: the fields it may
 * test (the catalog), the shape of a test, and its evaluation by the engine. Parsing a test from a
 * node's config is config parsing and lives in ./node-configs.ts. The semantics are listed in
 * ./README.md, "Contact field tests".
 */

export const CONTACT_FIELD_OPS = ['eq', 'neq', 'contains', 'not_contains', 'gt', 'gte', 'lt', 'lte', 'exists', 'not_exists'] as const;
export type ContactFieldOp = (typeof CONTACT_FIELD_OPS)[number];

/**
 * A test of one contact field, evaluated once when the enrollment reaches the branch.
 * `field` is a catalog field name or `custom.<name>` for a custom property.
 */
export interface ContactFieldTest {
  field: string;
  op: ContactFieldOp;
  /** Absent for exists / not_exists. Date-times are normalized to UTC ISO strings. */
  value?: string | number | boolean;
}

// ---------------------------------------------------------------------------------------------
// Contact field catalog

/** What a field test needs to know of a contact field: its type (and an enum's values). */
export interface ContactFieldDef {
  readonly type: FieldType;
  readonly values?: readonly string[];
}

/**
 * The contact fields a branch may test, by name. Compatible with a resource declaration's
 * `fields`, so the service can pass people's contacts declaration (or a subset) directly.
 */
export type ContactFieldCatalog = Readonly<Record<string, ContactFieldDef>>;

/**
 * The default catalog: the contact's declared fields (gateway/README.md, "Contacts") that
 * make sense in a branch. Timestamps of bookkeeping (`created_at`, `updated_at`) and `id` are left
 * out; the engagement timestamps are in, for `exists` / `gt` tests.
 */
export const DEFAULT_CONTACT_TEST_FIELDS: ContactFieldCatalog = {
  svc_uid: { type: 'string' },
  first_name: { type: 'string' },
  last_name: { type: 'string' },
  email: { type: 'email' },
  phone: { type: 'string' },
  title: { type: 'string' },
  company_name: { type: 'string' },
  company_domain: { type: 'string' },
  internal_stage: { type: 'string' },
  priority: { type: 'integer' },
  owner_id: { type: 'uuid' },
  organization_id: { type: 'uuid' },
  source: { type: 'string' },
  country: { type: 'string' },
  state: { type: 'string' },
  city: { type: 'string' },
  last_engagement_at: { type: 'datetime' },
  last_touchpoint_at: { type: 'datetime' },
};

/** How a test names a custom property: `custom.<name>`, the name as the contact holds it. */
export const CUSTOM_FIELD_PREFIX = 'custom.';

// ---------------------------------------------------------------------------------------------
// Evaluation

type TestValue = string | number | boolean;

/** A stored value that counts as absent for every op: null, undefined, or a blank string. */
function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

const fold = (value: string): string => value.trim().toLowerCase();

function toMillis(value: unknown): number | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
  if (typeof value === 'string') return parseDateTime(value)?.getTime() ?? (Number.isNaN(Date.parse(value)) ? undefined : Date.parse(value));
  return undefined;
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  // Big integers may travel as strings (Postgres bigint, protobuf int64).
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return undefined;
}

/** Compares a present stored value with the test value: <0, 0, >0, or undefined when incomparable. */
function compare(kind: FieldType | 'custom', stored: unknown, value: TestValue): number | undefined {
  switch (kind) {
    case 'integer':
      return diff(toNumber(stored), value as number);
    case 'datetime':
      return diff(toMillis(stored), Date.parse(value as string));
    case 'boolean':
      return typeof stored === 'boolean' ? (stored === value ? 0 : 1) : undefined;
    case 'uuid':
    case 'string':
    case 'text':
    case 'email':
    case 'url':
    case 'enum':
      return typeof stored === 'string' ? (fold(stored) === fold(value as string) ? 0 : 1) : undefined;
    case 'custom':
      if (typeof value === 'number') return diff(toNumber(stored), value);
      if (typeof value === 'boolean') return typeof stored === 'boolean' ? (stored === value ? 0 : 1) : undefined;
      return typeof stored === 'string' ? (fold(stored) === fold(value) ? 0 : 1) : undefined;
  }
}

const diff = (a: number | undefined, b: number): number | undefined => (a === undefined || Number.isNaN(b) ? undefined : a - b);

/**
 * Evaluates a field test against a contact as the API returns it (custom properties flat beside
 * the declared fields). Semantics, documented in README.md:
 * - a field is absent when it is missing, null or a blank string;
 * - string comparisons ignore case and surrounding whitespace;
 * - `neq` and `not_contains` are true for an absent field, every other op but `not_exists` false;
 * - a stored value of the wrong type never matches `eq`, `contains` or an ordering.
 */
export function evaluateContactTest(
  test: ContactFieldTest,
  contact: Readonly<Record<string, unknown>>,
  catalog: ContactFieldCatalog = DEFAULT_CONTACT_TEST_FIELDS,
): boolean {
  const custom = test.field.startsWith(CUSTOM_FIELD_PREFIX);
  const name = custom ? test.field.slice(CUSTOM_FIELD_PREFIX.length) : test.field;
  const stored = hasOwn(contact, name) ? contact[name] : undefined;
  const absent = isAbsent(stored);
  const kind: FieldType | 'custom' = custom ? 'custom' : hasOwn(catalog, name) ? catalog[name]!.type : 'custom';
  switch (test.op) {
    case 'exists':
      return !absent;
    case 'not_exists':
      return absent;
    case 'eq':
      return !absent && compare(kind, stored, test.value!) === 0;
    case 'neq':
      return absent || compare(kind, stored, test.value!) !== 0;
    case 'contains':
      return !absent && typeof stored === 'string' && fold(stored).includes(fold(String(test.value)));
    case 'not_contains':
      return absent || typeof stored !== 'string' || !fold(stored).includes(fold(String(test.value)));
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      if (absent) return false;
      const d = compare(kind, stored, test.value!);
      if (d === undefined) return false;
      return test.op === 'gt' ? d > 0 : test.op === 'gte' ? d >= 0 : test.op === 'lt' ? d < 0 : d <= 0;
    }
  }
}
