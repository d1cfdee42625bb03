import { contacts } from '@crm/people-contract';
import fc from 'fast-check';
import { type ContactFieldTest, DEFAULT_CONTACT_TEST_FIELDS, evaluateContactTest } from './contact-fields';

test("every field a branch may test is a field of people's contacts, with its type", () => {
  const declared = contacts.fields as Record<string, { type: string; values?: readonly string[] }>;
  const mismatches = Object.entries(DEFAULT_CONTACT_TEST_FIELDS).filter(([name, def]) => declared[name]?.type !== def.type);
  expect(mismatches).toEqual([]);
});

const UUID = '0190a0e0-0000-7000-8000-00000000000a';

describe('evaluateContactTest', () => {
  const contact = {
    first_name: '  Ada ',
    country: 'FR',
    company_name: 'Analytical Engines Ltd',
    priority: 700,
    owner_id: UUID,
    email: null,
    phone: '',
    last_engagement_at: '2026-03-01T10:00:00.000Z',
    segment: 'Enterprise',
    score: '4',
    beta: true,
  };
  const check = (field: string, op: ContactFieldTest['op'], value?: ContactFieldTest['value']) =>
    evaluateContactTest(value === undefined ? { field, op } : { field, op, value }, contact);

  test('strings compare without case or surrounding whitespace', () => {
    expect(check('first_name', 'eq', 'ada')).toBe(true);
    expect(check('country', 'eq', 'fr')).toBe(true);
    expect(check('country', 'neq', 'DE')).toBe(true);
    expect(check('company_name', 'contains', 'ENGINES')).toBe(true);
    expect(check('company_name', 'not_contains', 'engines')).toBe(false);
    expect(check('owner_id', 'eq', UUID.toUpperCase())).toBe(true);
  });

  test('absent means missing, null or blank; negative ops hold for absent fields', () => {
    for (const field of ['email', 'phone', 'city']) {
      expect(check(field, 'exists')).toBe(false);
      expect(check(field, 'not_exists')).toBe(true);
      expect(check(field, 'eq', 'x')).toBe(false);
      expect(check(field, 'neq', 'x')).toBe(true);
      expect(check(field, 'contains', 'x')).toBe(false);
      expect(check(field, 'not_contains', 'x')).toBe(true);
    }
    expect(check('last_touchpoint_at', 'lt', '2030-01-01T00:00:00.000Z')).toBe(false);
  });

  test('integers and date-times are ordered', () => {
    expect(check('priority', 'gte', 700)).toBe(true);
    expect(check('priority', 'gt', 700)).toBe(false);
    expect(check('priority', 'lt', 701)).toBe(true);
    expect(check('last_engagement_at', 'gt', '2026-02-28T23:59:59.000Z')).toBe(true);
    expect(check('last_engagement_at', 'lte', '2026-03-01T10:00:00.000Z')).toBe(true);
    expect(evaluateContactTest({ field: 'last_engagement_at', op: 'lt', value: '2026-03-02T00:00:00.000Z' }, { last_engagement_at: new Date('2026-03-01T00:00:00Z') })).toBe(true);
  });

  test('custom properties are read beside the declared fields', () => {
    expect(check('custom.segment', 'eq', 'enterprise')).toBe(true);
    expect(check('custom.score', 'gt', 3)).toBe(true);
    expect(check('custom.beta', 'eq', true)).toBe(true);
    expect(check('custom.beta', 'eq', 'true')).toBe(false);
    expect(check('custom.missing', 'not_exists')).toBe(true);
    expect(check('custom.constructor', 'exists')).toBe(false);
  });

  test('neq is the negation of eq and not_exists of exists, for any stored value', () => {
    const stored = fc.oneof(fc.constant(undefined), fc.constant(null), fc.string(), fc.integer(), fc.boolean());
    fc.assert(
      fc.property(stored, fc.string({ minLength: 1 }), (value, test) => {
        const c = { country: value, custom_thing: value };
        for (const field of ['country', 'custom.custom_thing']) {
          expect(evaluateContactTest({ field, op: 'neq', value: test }, c)).toBe(!evaluateContactTest({ field, op: 'eq', value: test }, c));
          expect(evaluateContactTest({ field, op: 'not_exists' }, c)).toBe(!evaluateContactTest({ field, op: 'exists' }, c));
          expect(evaluateContactTest({ field, op: 'not_contains', value: test }, c)).toBe(!evaluateContactTest({ field, op: 'contains', value: test }, c));
        }
      }),
    );
  });
});
