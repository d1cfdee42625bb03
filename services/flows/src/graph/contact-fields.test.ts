import { contacts } from '@crm/people-contract';
import { DEFAULT_CONTACT_TEST_FIELDS } from './node-configs';

test("every field a branch may test is a field of people's contacts, with its type", () => {
  const declared = contacts.fields as Record<string, { type: string; values?: readonly string[] }>;
  const mismatches = Object.entries(DEFAULT_CONTACT_TEST_FIELDS).filter(([name, def]) => declared[name]?.type !== def.type);
  expect(mismatches).toEqual([]);
});
