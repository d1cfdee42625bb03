import { CrmError } from './errors';
import { grants, isScope, parseScopes } from './scopes';

function validationIssues(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CrmError);
    expect((err as CrmError).code).toBe('validation_failed');
    return (err as CrmError).details;
  }
  throw new Error('expected a validation error');
}

describe('parseScopes', () => {
  it('accepts the three scope forms', () => {
    expect(parseScopes(['*', 'contacts:*', 'flows:read', 'chatapp_templates:delete']).scopes).toEqual([
      '*',
      'contacts:*',
      'flows:read',
      'chatapp_templates:delete',
    ]);
  });

  it('names the webhooks API by one scope resource, webhooks (DESIGN.md section 4)', () => {
    expect(parseScopes(['webhooks:read', 'webhooks:write', 'webhooks:delete', 'webhooks:*']).scopes).toHaveLength(4);
    expect(isScope('webhook_endpoints:read')).toBe(false);
    expect(isScope('webhook_deliveries:*')).toBe(false);
    expect(grants(['webhooks:*'], 'webhooks:write')).toBe(true);
    expect(grants(['webhooks:read'], 'webhooks:write')).toBe(false);
    expect(grants(['*'], 'webhook_endpoints:read')).toBe(false);
  });

  it('drops exact duplicates and keeps the first order', () => {
    expect(parseScopes(['tasks:write', 'contacts:read', 'tasks:write']).scopes).toEqual(['tasks:write', 'contacts:read']);
  });

  it('refuses an empty list', () => {
    expect(validationIssues(() => parseScopes([]))).toEqual([{ field: 'scopes', message: 'must list at least one scope' }]);
  });

  it('refuses the 1.x scopes and names the 2.0.0 replacement', () => {
    const issues = validationIssues(() => parseScopes(['lists:*', 'sequences:read'])) as { field: string; message: string }[];
    expect(issues).toHaveLength(2);
    expect(issues[0]).toEqual({ field: 'scopes[0]', message: expect.stringContaining("'pools:*'") });
    expect(issues[1]).toEqual({ field: 'scopes[1]', message: expect.stringContaining("'flows:read'") });
  });

  it('reports every invalid entry with its position', () => {
    const issues = validationIssues(() =>
      parseScopes(['contacts:read', 'widgets:read', 'contacts:admin', 'contacts', 'contacts:read:x', 'Contacts:read', 42]),
    ) as { field: string }[];
    expect(issues.map((i) => i.field)).toEqual(['scopes[1]', 'scopes[2]', 'scopes[3]', 'scopes[4]', 'scopes[5]', 'scopes[6]']);
  });
});

describe('isScope', () => {
  it.each(['*', 'users:*', 'pool_contacts:write'])('%s is a scope', (s) => expect(isScope(s)).toBe(true));
  it.each(['', '*:*', '*:read', 'users:', ':read', 'users:read ', 'lists:read'])('%p is not a scope', (s) =>
    expect(isScope(s)).toBe(false),
  );
});

describe('grants', () => {
  it('grants everything to *', () => {
    expect(grants(['*'], 'meetings:delete')).toBe(true);
  });

  it('grants every action of a resource to <resource>:*', () => {
    expect(grants(['contacts:*'], 'contacts:read')).toBe(true);
    expect(grants(['contacts:*'], 'contacts:delete')).toBe(true);
    expect(grants(['contacts:*'], 'organizations:read')).toBe(false);
  });

  it('grants an exact scope and nothing wider', () => {
    expect(grants(['contacts:read'], 'contacts:read')).toBe(true);
    expect(grants(['contacts:read'], 'contacts:write')).toBe(false);
    expect(grants(['pool_contacts:read'], 'pools:read')).toBe(false);
    expect(grants([], 'contacts:read')).toBe(false);
  });

  it('fails closed when the required scope is not a concrete <resource>:<action>', () => {
    expect(grants(['*'], 'contacts:*')).toBe(false);
    expect(grants(['*'], '*')).toBe(false);
    expect(grants(['*'], 'lists:read')).toBe(false);
    expect(grants(['contacts:read'], 'contacts:read:extra')).toBe(false);
  });
});
