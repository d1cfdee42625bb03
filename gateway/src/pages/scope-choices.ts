import { ACTIONS, RESOURCES } from '@crm/kit';

export interface ScopeChoice {
  /** The scope itself, which is also the checkbox's label. */
  value: string;
  /** The checkbox's element id. */
  id: string;
  checked: boolean;
}

export interface ScopeGroup {
  resource: string;
  scopes: ScopeChoice[];
}

const idOf = (scope: string) => `scope-${scope.replace(':', '-').replace('*', 'all')}`;

/**
 * The create form's checkboxes, from the kit's own list of resources and actions, so a new
 * resource appears here without an edit: `*`, then per resource read, write, delete and `*`.
 */
export function scopeChoices(checked: readonly string[] = []): { all: ScopeChoice; groups: ScopeGroup[] } {
  const on = new Set(checked);
  const choice = (value: string): ScopeChoice => ({ value, id: idOf(value), checked: on.has(value) });
  return {
    all: choice('*'),
    groups: RESOURCES.map((resource) => ({ resource, scopes: [...ACTIONS, '*'].map((action) => choice(`${resource}:${action}`)) })),
  };
}
