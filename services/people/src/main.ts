import { directoryApi, userReference } from '@crm/directory-contract';
import { type SqlServiceDefinition, withReferenceChecks } from '@crm/kit';
import { peopleApi } from '@crm/people-contract';
import { subscribeActivityTimestamps } from './activity-timestamps.consumer';
import { migrations } from './migrations';
import { peopleGrpcBinding } from './people.grpc';
import { type PeopleService, createPeopleService } from './people.service';

/**
 * The people service: contacts, organizations, pools and memberships over PeopleService, and the
 * consumer of activity events that moves contacts' activity timestamps.
 */
export const peopleService: SqlServiceDefinition<PeopleService, { directory: typeof directoryApi }> = {
  name: 'people',
  migrations,
  resources: peopleApi.routes.map((route) => route.spec),
  peers: { directory: directoryApi },
  create({ db, cursors, afterCommit, log, peers }) {
    const service = createPeopleService({ db, cursors, afterCommit, log });
    // Owners are users of the workspace, checked with the directory (gateway/README.md, "References").
    const owner = { owner_id: userReference(peers.directory) };
    return { ...service, contacts: withReferenceChecks(service.contacts, owner), pools: withReferenceChecks(service.pools, owner) };
  },
  bindings: (service, log) => [peopleGrpcBinding(service, log)],
  consumers: async (service, { bus, db }) => [await subscribeActivityTimestamps(bus, service.activity, db.schema)],
};
