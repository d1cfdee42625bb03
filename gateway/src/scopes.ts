import { CrmError, grants } from '@crm/kit';
import type { Principal } from './plugins/auth';

export function requireScope(principal: Principal, scope: string): void {
  if (!grants(principal.scopes, scope)) {
    throw new CrmError('forbidden', `this API key lacks the ${scope} scope`, { required_scope: scope });
  }
}
