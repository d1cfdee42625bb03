import { DEFAULT_PORTS } from '@crm/kit';
import { peopleService } from '@crm/people';
import { sqlComponent } from './component';

export const peopleComponent = sqlComponent(peopleService, DEFAULT_PORTS.people);
