import { defineContextApi, route } from '@crm/kit';
import { loadMessaging } from '@crm/proto';
import { emailEvents } from './email-events.resource';
import { sentEmails } from './sent-emails.resource';
import { chatappTemplates, emailTemplates } from './templates.resource';
import { touchpoints } from './touchpoints.resource';

/**
 * The messaging context's route table. Sends are queued and then only read (a send is never
 * changed or deleted over the API: 405); email events are read-only; touchpoints are logged and
 * read. QueueSend, CancelSend, RecordEngagement, IngestMail and ValidateTemplate are the
 * context's own RPCs beside them.
 */
export const messagingApi = defineContextApi({
  name: 'messaging',
  service: () => loadMessaging().crm.messaging.v1.MessagingService,
  routes: [
    route(sentEmails, ['list', 'create', 'get']),
    route(emailEvents, ['list', 'get']),
    route(touchpoints, ['list', 'create', 'get']),
    route(emailTemplates, ['list', 'create', 'get', 'update', 'delete']),
    route(chatappTemplates, ['list', 'create', 'get', 'update', 'delete']),
  ],
});
