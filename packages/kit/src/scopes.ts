import { CrmError, type FieldIssue } from './errors';
import { RENAMED_RESOURCES } from './legacy';

/**
 * API key scopes: `*`, `<resource>:*` or `<resource>:<action>`. The directory validates them when a
 * key is created; the gateway checks them on every request with `grants`.
 */
export const RESOURCES = [
  'contacts',
  'organizations',
  'pools',
  'pool_contacts',
  'flows',
  'flow_nodes',
  'flow_runs',
  'sent_emails',
  'email_events',
  'touchpoints',
  'tasks',
  'call_logs',
  'meetings',
  'integrations',
  'users',
  'email_templates',
  'chatapp_templates',
  // One scope resource for the webhooks API (DESIGN.md section 4): webhook_endpoints and
  // webhook_deliveries both need `webhooks:<action>` (their route table says so).
  'webhooks',
] as const;
export type Resource = (typeof RESOURCES)[number];

export const ACTIONS = ['read', 'write', 'delete'] as const;
export type Action = (typeof ACTIONS)[number];

/** A scope an operation requires: always one resource and one action. */
export type RequiredScope = `${Resource}:${Action}`;
/** A scope a key may carry. */
export type Scope = '*' | `${Resource}:*` | RequiredScope;


const resourceSet: ReadonlySet<string> = new Set(RESOURCES);
const actionSet: ReadonlySet<string> = new Set(ACTIONS);

export const isResource = (value: string): value is Resource => resourceSet.has(value);

/** Why `value` is not a scope, or undefined when it is one. */
function scopeProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (value === '*') return undefined;
  const [resource, action, ...rest] = value.split(':');
  if (resource === undefined || action === undefined || rest.length > 0) {
    return `'${value}' is not a scope; use '*', '<resource>:*' or '<resource>:<read|write|delete>'`;
  }
  const renamed = RENAMED_RESOURCES[resource];
  if (renamed) return `'${resource}' was renamed to '${renamed}' in 2.0.0; use '${renamed}:${action}'`;
  if (!isResource(resource)) return `unknown resource '${resource}'`;
  if (action !== '*' && !actionSet.has(action)) return `unknown action '${action}'; use read, write, delete or *`;
  return undefined;
}

export const isScope = (value: unknown): value is Scope => scopeProblem(value) === undefined;

/**
 * Validates the scopes requested for a new key. Exact duplicates are dropped (order kept); every
 * invalid entry is reported at once as a `validation_failed` issue on `scopes[i]`.
 */
export function parseScopes(list: readonly unknown[]): { scopes: Scope[] } {
  if (!Array.isArray(list) || list.length === 0) {
    throw CrmError.validation([{ field: 'scopes', message: 'must list at least one scope' }]);
  }
  const issues: FieldIssue[] = [];
  const scopes = new Set<Scope>();
  list.forEach((value, i) => {
    const problem = scopeProblem(value);
    if (problem) issues.push({ field: `scopes[${i}]`, message: problem });
    else scopes.add(value as Scope);
  });
  if (issues.length > 0) throw CrmError.validation(issues);
  return { scopes: [...scopes] };
}

/**
 * Whether a key holding `scopes` may perform an operation that requires `required`
 * (`<resource>:<action>`). A required scope that is not of that form grants nothing: a typo in a
 * route table must fail closed, not open.
 */
export function grants(scopes: readonly string[], required: string): boolean {
  const [resource, action, ...rest] = required.split(':');
  if (resource === undefined || action === undefined || rest.length > 0) return false;
  if (!isResource(resource) || !actionSet.has(action)) return false;
  return scopes.some((s) => s === '*' || s === `${resource}:*` || s === required);
}
