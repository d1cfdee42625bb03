import type { ServiceComponent } from './component';
import { directoryComponent } from './directory.component';
import { peopleComponent } from './people.component';
import { activitiesComponent } from './activities.component';

export type { ServiceComponent, Stop } from './component';

/** Every back-end service, in start order (the directory first: the gateway authenticates with it). */
export const SERVICE_COMPONENTS: readonly ServiceComponent[] = [directoryComponent, peopleComponent, activitiesComponent];

export const addressEnv = (name: string) => `${name.toUpperCase()}_ADDR`;
