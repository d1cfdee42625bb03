import { defineContextApi, route } from '@crm/kit';
import { loadPeople } from '@crm/proto';
import { contacts } from './contacts.resource';
import { organizations } from './organizations.resource';
import { poolContacts } from './pool-contacts.resource';
import { pools } from './pools.resource';

/**
 * The people context's route table: each line is a resource and the operations its API offers.
 * The gateway serves exactly these; the service binds them to its stores. A pool's bulk members
 * (AddPoolMembers, RemovePoolMembers) are the context's own RPCs beside them.
 */
export const peopleApi = defineContextApi({
  name: 'people',
  service: () => loadPeople().crm.people.v1.PeopleService,
  routes: [
    route(contacts, ['list', 'create', 'get', 'update', 'delete']),
    route(organizations, ['list', 'create', 'get', 'update', 'delete']),
    route(pools, ['list', 'create', 'get', 'update', 'delete']),
    // Memberships are never changed in place: PATCH answers 405.
    route(poolContacts, ['list', 'create', 'get', 'delete']),
  ],
});
