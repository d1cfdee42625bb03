import { DEFAULT_PORTS } from '@crm/kit';
import { activitiesService } from '@crm/activities';
import { sqlComponent } from './component';

export const activitiesComponent = sqlComponent(activitiesService, DEFAULT_PORTS.activities);
