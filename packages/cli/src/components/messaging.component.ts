import { DEFAULT_PORTS, addressTarget } from '@crm/kit';
import { messagingService } from '@crm/messaging';
import { sqlComponent } from './component';

export const messagingComponent = sqlComponent(messagingService, DEFAULT_PORTS.messaging, {
  // Inbound SMTP, when messaging is told to listen for mail.
  listens: (settings) => (settings.INBOUND_SMTP_ADDR ? [addressTarget('INBOUND_SMTP_ADDR', settings.INBOUND_SMTP_ADDR)] : []),
});
