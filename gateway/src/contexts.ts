import { activitiesApi } from '@crm/activities-contract';
import { directoryApi, users } from '@crm/directory-contract';
import { flowsApi } from '@crm/flows-contract';
import { messagingApi } from '@crm/messaging-contract';
import { contacts, peopleApi } from '@crm/people-contract';
import { webhooksApi } from '@crm/webhooks-contract';
import { enrollmentRoutes, flowRoutes } from './routes/flows.routes';
import { contactTimelineRoutes, userPerformanceRoutes } from './routes/messaging.routes';
import { poolMemberRoutes } from './routes/people.routes';
import { type ServiceContext, serviceContext } from './routes/resource.routes';
import { webhookDeliveryRoutes, webhookEndpointRoutes } from './routes/webhooks.routes';

/**
 * The bounded contexts the gateway fronts, each from its contract's route table (plus the HTTP
 * routes it adds under a resource). A context's service is found at `<NAME>_ADDR`.
 */
export const CONTEXTS: readonly ServiceContext[] = [
  serviceContext(peopleApi, (client, deadlineMs) => ({ pools: poolMemberRoutes(client, deadlineMs) })),
  serviceContext(activitiesApi),
  serviceContext(directoryApi),
  // Messaging's views of the engagement ledger sit under people's contacts and directory's users.
  serviceContext(messagingApi, undefined, (client, deadlineMs) => [
    { spec: contacts, routes: contactTimelineRoutes(client, deadlineMs) },
    { spec: users, routes: userPerformanceRoutes(client, deadlineMs) },
  ]),
  serviceContext(flowsApi, (client, deadlineMs) => ({ flows: flowRoutes(client, deadlineMs), enrollments: enrollmentRoutes(client, deadlineMs) })),
  serviceContext(webhooksApi, (client, deadlineMs) => ({
    webhook_endpoints: webhookEndpointRoutes(client, deadlineMs),
    webhook_deliveries: webhookDeliveryRoutes(client, deadlineMs),
  })),
];

export type { ServiceContext };
