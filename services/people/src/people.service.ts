import { type CursorCodec, type ResourceStore, type SqlClient, contacts, createResourceStore } from '@crm/kit';

export interface PeopleService {
  contacts: ResourceStore;
}

export interface PeopleServiceDeps {
  db: SqlClient;
  cursors: CursorCodec;
  /** Wakes the outbox relay after a commit. */
  afterCommit?: () => void;
}

export function createPeopleService({ db, cursors, afterCommit }: PeopleServiceDeps): PeopleService {
  return {
    contacts: createResourceStore({ db, spec: contacts, eventPrefix: 'crm.people', cursors, afterCommit }),
  };
}
