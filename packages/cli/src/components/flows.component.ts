import { DEFAULT_PORTS } from '@crm/kit';
import { flowsService } from '@crm/flows';
import { sqlComponent } from './component';

export const flowsComponent = sqlComponent(flowsService, DEFAULT_PORTS.flows);
