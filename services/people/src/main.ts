import type { SqlServiceDefinition } from '@crm/kit';
import { activityDurableFor, subscribeActivityTimestamps } from './activity-timestamps.consumer';
import { migrations } from './migrations';
import { peopleGrpcBinding } from './people.grpc';
import { type PeopleService, createPeopleService } from './people.service';

/**
 * The people service: contacts, organizations, pools and memberships over PeopleService, and the
 * consumer of activity events that moves contacts' activity timestamps.
 */
export const peopleService: SqlServiceDefinition<PeopleService> = {
  name: 'people',
  migrations,
  create: ({ db, cursors, afterCommit, log }) => createPeopleService({ db, cursors, afterCommit, log }),
  bindings: (service, log) => [peopleGrpcBinding(service, log)],
  consumers: async (service, { bus, db }) => [await subscribeActivityTimestamps(bus, service.activity, activityDurableFor(db.schema))],
};
