import { activitiesComponent } from './activities.component';
import type { ServiceComponent } from './component';
import { flowsComponent } from './flows.component';
import { messagingComponent } from './messaging.component';
import { directoryComponent } from './directory.component';
import { peopleComponent } from './people.component';
import { webhooksComponent } from './webhooks.component';

export type { ServiceComponent, Stop } from './component';

/**
 * Every back-end service, in start order: the directory first (the gateway authenticates with it),
 * then each context after the peers it calls, so all-in-one can hand it their addresses.
 *
 * Each lives in its own module, `<name>.component.ts`: `crm start <name>` loads only that one (see
 * load.ts), so a service's image holds that service and none of the others.
 */
export const SERVICE_COMPONENTS: readonly ServiceComponent[] = [
  directoryComponent,
  peopleComponent,
  activitiesComponent,
  messagingComponent,
  flowsComponent,
  // Consumes every context's events; calls none of them.
  webhooksComponent,
];

export { addressEnv } from '@crm/kit';
