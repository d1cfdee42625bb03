import { DEFAULT_PORTS } from '@crm/kit';
import { messagingService } from '@crm/messaging';
import { sqlComponent } from './component';

export const messagingComponent = sqlComponent(messagingService, DEFAULT_PORTS.messaging);
