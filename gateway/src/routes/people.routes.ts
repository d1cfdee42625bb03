import { contacts } from '@crm/kit';
import { loadPeople } from '@crm/proto';
import type { ServiceContext } from '../contexts';
import { resourceClient } from '../clients';

/** The people context: its resources and the operations each offers. */
export const peopleContext: ServiceContext = {
  name: 'people',
  client: () => loadPeople().crm.people.v1.PeopleService,
  routes: (client, deadlineMs) => [
    { spec: contacts, client: resourceClient(client, contacts), operations: ['list', 'create', 'get', 'update', 'delete'], deadlineMs },
  ],
};
