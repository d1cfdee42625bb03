import type { FieldIssue } from '@crm/kit';
import { DEFAULT_CONTACT_TEST_FIELDS } from './contact-fields';
import { CONFIG_LIMITS, type ConfigContext, type NodeType, parseNodeConfig } from './node-configs';

function parse(type: NodeType, config: unknown, options: Partial<ConfigContext> = {}) {
  const issues: FieldIssue[] = [];
  const value = parseNodeConfig(type, config, {
    path: 'nodes[0].config',
    who: "node 'n'",
    contactFields: DEFAULT_CONTACT_TEST_FIELDS,
    customContactFields: true,
    issues,
    ...options,
  });
  return { value, issues };
}

const issue = (field: string, message: string): FieldIssue => ({ field: `nodes[0].config${field}`, message: `node 'n': ${message}` });
const UUID = '0190a0e0-0000-7000-8000-00000000000a';

describe('email', () => {
  test('inline content: subject and body, optional text part', () => {
    expect(parse('email', { subject: 'Hi {{ first_name }}', body: '<p>x</p>', body_text: 'x' }).value).toEqual({
      subject: 'Hi {{ first_name }}',
      body: '<p>x</p>',
      body_text: 'x',
    });
  });

  test('a template instead of content, never both', () => {
    expect(parse('email', { template_id: UUID.toUpperCase() }).value).toEqual({ template_id: UUID });
    expect(parse('email', { template_id: UUID, subject: 'x', body: 'y' }).issues).toEqual([
      issue('.subject', 'cannot be combined with template_id: the template supplies the subject and body'),
      issue('.body', 'cannot be combined with template_id: the template supplies the subject and body'),
    ]);
    expect(parse('email', { template_id: 'nope' }).issues).toEqual([issue('.template_id', 'must be a UUID')]);
  });

  test('missing, blank, multi-line, oversized and non-text content is refused', () => {
    // A missing subject is allowed here (a reply in the thread); the graph checks where.
    expect(parse('email', {}).issues).toEqual([issue('.body', 'is required (or give template_id instead of subject and body)')]);
    expect(parse('email', { body: '<p>b</p>' })).toEqual({ value: { body: '<p>b</p>' }, issues: [] });
    expect(parse('email', undefined).issues).toHaveLength(1);
    expect(parse('email', { subject: '  ', body: 3 }).issues).toEqual([issue('.subject', 'must not be empty'), issue('.body', 'must be a string')]);
    expect(parse('email', { subject: 'a\r\nBcc: x@y.z', body: 'b' }).issues).toEqual([issue('.subject', 'must be a single line')]);
    expect(parse('email', { subject: 's'.repeat(CONFIG_LIMITS.subjectMaxLength + 1), body: 'b' }).issues).toEqual([
      issue('.subject', 'must be at most 1000 characters'),
    ]);
    expect(parse('email', { subject: 's', body: 'b'.repeat(100_001) }).issues).toEqual([issue('.body', 'must be at most 100000 characters')]);
    expect(parse('email', { subject: 's', body: 'b\u0000' }).issues).toEqual([issue('.body', 'must not contain the NUL character')]);
    expect(parse('email', { subject: 's\uD800', body: 'b' }).issues).toEqual([issue('.subject', 'must be valid Unicode (it holds a lone surrogate)')]);
    expect(parse('email', { subject: 's', body: 'b', cc: 'x' }).issues).toEqual([
      issue('.cc', 'is not a setting of email nodes (allowed: subject, body, body_text, template_id)'),
    ]);
    expect(parse('email', 'hello').issues).toEqual([{ field: 'nodes[0].config', message: "node 'n': config must be an object" }]);
  });

  test('a body at its limit and a subject with emoji are accepted', () => {
    expect(parse('email', { subject: 'Hi 👋', body: 'b'.repeat(100_000) }).issues).toEqual([]);
  });
});

describe('wait', () => {
  test('duration is an integer from 1 second to 365 days', () => {
    expect(parse('wait', { duration_seconds: 1 }).value).toEqual({ duration_seconds: 1 });
    expect(parse('wait', { duration_seconds: 31_536_000 }).value).toEqual({ duration_seconds: 31_536_000 });
    for (const bad of [0, 31_536_001, 1.5, '60', -1]) {
      expect(parse('wait', { duration_seconds: bad }).issues).toEqual([
        issue('.duration_seconds', typeof bad === 'number' && Number.isInteger(bad) ? 'must be between 1 and 31536000' : 'must be an integer'),
      ]);
    }
    expect(parse('wait', {}).issues).toEqual([issue('.duration_seconds', 'is required')]);
  });
});

describe.each(['task', 'call', 'chat_message', 'professional_network'] as const)('%s', (type) => {
  test('title is required; description, due offset and priority are optional and bounded', () => {
    expect(parse(type, { title: 'Call back', description: 'Ask about Q3', due_in_seconds: 0, priority: 1000 }).value).toEqual({
      title: 'Call back',
      description: 'Ask about Q3',
      due_in_seconds: 0,
      priority: 1000,
    });
    expect(parse(type, { title: 'x' }).value).toEqual({ title: 'x' });
    expect(parse(type, { description: 'd'.repeat(10_001), due_in_seconds: -1, priority: 1001 }).issues).toEqual([
      issue('.title', 'is required'),
      issue('.description', 'must be at most 10000 characters'),
      issue('.due_in_seconds', 'must be between 0 and 31536000'),
      issue('.priority', 'must be between 0 and 1000'),
    ]);
    expect(parse(type, { title: 't'.repeat(256) }).issues).toEqual([issue('.title', 'must be at most 255 characters')]);
  });
});

describe('branch', () => {
  test('an email event with a window, 0 meaning "already happened"', () => {
    expect(parse('branch', { condition: 'replied', within_seconds: 0 }).value).toEqual({ condition: 'replied', within_seconds: 0 });
    expect(parse('branch', { condition: 'bounced', within_seconds: 10 }).issues).toEqual([
      issue('.condition', 'must be one of opened, clicked, replied, or a contact field test {field, op, value}'),
    ]);
    expect(parse('branch', { condition: 'opened' }).issues).toEqual([issue('.within_seconds', 'is required')]);
    expect(parse('branch', {}).issues).toEqual([
      issue('.condition', 'is required: one of opened, clicked, replied, or a contact field test {field, op, value}'),
    ]);
  });

  test('a contact field test is typed by the field and evaluated on arrival', () => {
    const ok = (condition: unknown) => parse('branch', { condition }).value;
    expect(ok({ field: 'country', op: 'eq', value: 'FR' })).toEqual({ condition: { field: 'country', op: 'eq', value: 'FR' }, within_seconds: 0 });
    expect(ok({ field: 'priority', op: 'gte', value: 500 })).toBeDefined();
    expect(ok({ field: 'last_engagement_at', op: 'gt', value: '2026-01-01T00:00:00+01:00' })).toEqual({
      condition: { field: 'last_engagement_at', op: 'gt', value: '2025-12-31T23:00:00.000Z' },
      within_seconds: 0,
    });
    expect(ok({ field: 'owner_id', op: 'eq', value: UUID.toUpperCase() })).toEqual({ condition: { field: 'owner_id', op: 'eq', value: UUID }, within_seconds: 0 });
    expect(ok({ field: 'email', op: 'not_exists', value: null })).toEqual({ condition: { field: 'email', op: 'not_exists' }, within_seconds: 0 });
    expect(ok({ field: 'custom.segment', op: 'contains', value: 'ent' })).toBeDefined();
    expect(ok({ field: 'custom.score', op: 'lt', value: 3.5 })).toBeDefined();
    expect(parse('branch', { condition: { field: 'country', op: 'exists' }, within_seconds: 0 }).issues).toEqual([]);
  });

  test('field test problems name the part at fault', () => {
    const issues = (condition: unknown, within?: unknown) => parse('branch', { condition, within_seconds: within }).issues;
    const at = (part: string, message: string) => issue(`.condition.${part}`, message);
    expect(issues({ field: 'country', op: 'eq', value: 'FR' }, 60)).toEqual([
      issue('.within_seconds', 'must be 0 or absent for a contact field test (it is evaluated on arrival; put a wait node before the branch to delay it)'),
    ]);
    expect(issues({ field: 'salary', op: 'eq', value: 1 })).toEqual([
      { field: 'nodes[0].config.condition.field', message: expect.stringMatching(/^node 'n': is not a contact field a branch can test \(one of svc_uid, .*, or custom.<name>\)$/) },
    ]);
    // A name of Object.prototype is not a field.
    expect(issues({ field: 'constructor', op: 'exists' })[0]?.field).toBe('nodes[0].config.condition.field');
    expect(issues({ field: 'priority', op: 'contains', value: '5' })).toEqual([
      at('op', 'contains does not apply to priority (type integer); use one of eq, neq, exists, not_exists, gt, gte, lt, lte'),
    ]);
    expect(issues({ field: 'country', op: 'gt', value: 'A' })[0]?.field).toBe('nodes[0].config.condition.op');
    expect(issues({ field: 'country', op: 'like', value: 'A' })).toEqual([
      at('op', 'must be one of eq, neq, contains, not_contains, gt, gte, lt, lte, exists, not_exists'),
    ]);
    expect(issues({ field: 'country', op: 'eq' })).toEqual([at('value', 'is required for eq')]);
    expect(issues({ field: 'country', op: 'eq', value: ' ' })).toEqual([at('value', 'must not be empty')]);
    expect(issues({ field: 'country', op: 'exists', value: 'x' })).toEqual([at('value', 'must be absent for exists')]);
    expect(issues({ field: 'priority', op: 'eq', value: '5' })).toEqual([at('value', 'must be an integer')]);
    expect(issues({ field: 'owner_id', op: 'eq', value: 'me' })).toEqual([at('value', 'must be a UUID')]);
    expect(issues({ field: 'last_touchpoint_at', op: 'lt', value: '2026-01-01' })).toEqual([at('value', 'must be an RFC 3339 date-time with offset')]);
    expect(issues({ field: 'custom.', op: 'exists' })).toEqual([at('field', 'a custom field name must be 1 to 100 characters')]);
    expect(issues({ field: 'custom.country', op: 'exists' })).toEqual([at('field', "'country' is a declared field: test it as 'country', not 'custom.country'")]);
    expect(issues({ field: 'custom.score', op: 'gt', value: '3' })).toEqual([at('value', 'must be a number for gt on a custom field')]);
    expect(issues({ field: 'custom.tags', op: 'eq', value: ['a'] })).toEqual([at('value', 'must be a string, number or boolean')]);
    expect(issues({ field: 'country', op: 'eq', value: 'FR', negate: true })).toEqual([at('negate', 'is not part of a field test (field, op, value)')]);
    expect(issues(['opened'], 0)).toEqual([issue('.condition', 'must be one of opened, clicked, replied, or a contact field test {field, op, value}')]);
  });

  test('the catalog is a parameter, and custom fields can be turned off', () => {
    const contactFields = { stage: { type: 'enum', values: ['lead', 'customer'] } } as const;
    const condition = (value: string) => ({ condition: { field: 'stage', op: 'eq', value } });
    expect(parse('branch', condition('lead'), { contactFields }).issues).toEqual([]);
    expect(parse('branch', condition('vip'), { contactFields }).issues).toEqual([
      issue('.condition.value', 'must be one of lead, customer'),
    ]);
    expect(parse('branch', { condition: { field: 'country', op: 'exists' } }, { contactFields }).issues[0]?.message).toContain(
      '(one of stage, or custom.<name>)',
    );
    expect(parse('branch', { condition: { field: 'custom.x', op: 'exists' } }, { customContactFields: false }).issues).toEqual([
      issue('.condition.field', 'custom fields cannot be tested in this workspace'),
    ]);
  });
});

describe('end', () => {
  test('takes no settings', () => {
    expect(parse('end', {}).value).toEqual({});
    expect(parse('end', null).value).toEqual({});
    expect(parse('end', { reason: 'x' }).issues).toEqual([issue('.reason', 'end nodes take no settings')]);
  });
});
