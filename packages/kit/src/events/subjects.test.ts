import { isConcreteSubject, isSubjectFilter, subjectMatches } from './subjects';

describe('subject matching (NATS rules)', () => {
  test.each([
    ['crm.sales.contact.deleted', 'crm.sales.contact.deleted', true],
    ['crm.sales.contact.deleted', 'crm.sales.contact.created', false],
    ['crm.sales.*.deleted', 'crm.sales.contact.deleted', true],
    ['crm.sales.*.deleted', 'crm.sales.contact.note.deleted', false],
    ['crm.*', 'crm.people', true],
    ['crm.*', 'crm.sales.contact', false],
    ['crm.>', 'crm.people', true],
    ['crm.>', 'crm.sales.contact.deleted', true],
    ['crm.>', 'crm', false],
    ['crm.sales.>', 'crm.mail.email.sent', false],
    ['*.*.contact.>', 'crm.sales.contact.deleted', true],
    ['>', 'anything.at.all', true],
    ['crm.people', 'crm.sales.contact', false],
  ])('%s matches %s: %s', (filter, subject, expected) => {
    expect(subjectMatches(filter, subject)).toBe(expected);
  });

  test('concrete subjects have non-empty tokens and no wildcard', () => {
    expect(isConcreteSubject('crm.sales.contact.deleted')).toBe(true);
    for (const bad of ['', 'crm..deleted', '.crm', 'crm.', 'crm.*.deleted', 'crm.>', 'crm people']) {
      expect(isConcreteSubject(bad)).toBe(false);
    }
  });

  test('filters allow * anywhere and > only last', () => {
    expect(isSubjectFilter('crm.*.contact.>')).toBe(true);
    expect(isSubjectFilter('crm.>.deleted')).toBe(false);
    expect(isSubjectFilter('crm..deleted')).toBe(false);
  });
});
