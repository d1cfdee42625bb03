import { DEFAULT_PORTS } from '@crm/kit';
import { activitiesService } from '@crm/activities';
import { flowsService } from '@crm/flows';
import { messagingService } from '@crm/messaging';
import { peopleService } from '@crm/people';
import { type ServiceComponent, sqlComponent } from './component';
import { directoryComponent } from './directory.component';

export type { ServiceComponent, Stop } from './component';

/**
 * Every back-end service, in start order: the directory first (the gateway authenticates with it),
 * then each context after the peers it calls, so all-in-one can hand it their addresses.
 */
export const SERVICE_COMPONENTS: readonly ServiceComponent[] = [
  directoryComponent,
  sqlComponent(peopleService, DEFAULT_PORTS.people),
  sqlComponent(activitiesService, DEFAULT_PORTS.activities),
  sqlComponent(messagingService, DEFAULT_PORTS.messaging),
  sqlComponent(flowsService, DEFAULT_PORTS.flows),
];

export { addressEnv } from '@crm/kit';
