import { DEFAULT_PORTS } from '@crm/kit';
import { webhooksService } from '@crm/webhooks';
import { sqlComponent } from './component';
import { loadSecret } from '../runtime';

const base = sqlComponent(webhooksService, DEFAULT_PORTS.webhooks);

/**
 * Webhooks: a Postgres-backed component like the others, whose SECRETS_KEY (endpoint secrets at
 * rest) is required of a component and, in all-in-one, is the one the data folder keeps for the
 * directory (runtime.ts, loadSecret).
 */
export const webhooksComponent: typeof base = {
  ...base,
  start(ctx) {
    const key = loadSecret('SECRETS_KEY', ctx.settings, ctx.mode);
    return base.start({ ...ctx, settings: { ...ctx.settings, SECRETS_KEY: key } });
  },
};
