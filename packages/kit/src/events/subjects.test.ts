import { isConcreteSubject, isSubjectFilter, subjectMatches } from './subjects';

describe('subject matching (NATS rules)', () => {
  test.each([
    ['crm.people.contact.deleted', 'crm.people.contact.deleted', true],
    ['crm.people.contact.deleted', 'crm.people.contact.created', false],
    ['crm.people.*.deleted', 'crm.people.contact.deleted', true],
    ['crm.people.*.deleted', 'crm.people.contact.note.deleted', false],
    ['crm.*', 'crm.people', true],
    ['crm.*', 'crm.people.contact', false],
    ['crm.>', 'crm.people', true],
    ['crm.>', 'crm.people.contact.deleted', true],
    ['crm.>', 'crm', false],
    ['crm.people.>', 'crm.messaging.email.sent', false],
    ['*.*.contact.>', 'crm.people.contact.deleted', true],
    ['>', 'anything.at.all', true],
    ['crm.people', 'crm.people.contact', false],
  ])('%s matches %s: %s', (filter, subject, expected) => {
    expect(subjectMatches(filter, subject)).toBe(expected);
  });

  test('concrete subjects have non-empty tokens and no wildcard', () => {
    expect(isConcreteSubject('crm.people.contact.deleted')).toBe(true);
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
