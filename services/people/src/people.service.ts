import { type CursorCodec, type Logger, type ResourceStore, type SqlClient, createLogger, createTransactionRunner } from '@crm/kit';
import { type ActivityTimestamps, createActivityTimestamps } from './activity-timestamps.consumer';
import { type ContactRefs, createContactRefs } from './contact-refs';
import { createContactsStore, createOrganizationsStore, createPoolsStore } from './people.store';
import { type PoolMembers, createPoolContactsStore, createPoolMembers } from './pool-members.store';

export interface PeopleService {
  contacts: ResourceStore;
  organizations: ResourceStore;
  pools: ResourceStore;
  poolContacts: ResourceStore;
  /** Bulk membership changes of one pool. */
  members: PoolMembers;
  /** Contacts' last_touchpoint_at / last_engagement_at, fed by activity events. */
  activity: ActivityTimestamps;
  /** Ids, addresses and owners of many contacts at once (the flow engine's bulk enrollment). */
  refs: ContactRefs;
}

export interface PeopleServiceDeps {
  db: SqlClient;
  cursors: CursorCodec;
  /** Wakes the outbox relay after a commit. */
  afterCommit?: () => void;
  log?: Logger;
}

export function createPeopleService({ db, cursors, afterCommit, log }: PeopleServiceDeps): PeopleService {
  const tx = createTransactionRunner(db, afterCommit);
  const deps = { db, cursors, afterCommit };
  return {
    contacts: createContactsStore(deps),
    organizations: createOrganizationsStore(deps),
    pools: createPoolsStore(deps),
    poolContacts: createPoolContactsStore({ db, cursors, tx }),
    members: createPoolMembers({ tx }),
    activity: createActivityTimestamps({ db, afterCommit, log: log ?? createLogger('people', 'silent') }),
    refs: createContactRefs(db),
  };
}
