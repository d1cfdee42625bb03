import { type GrpcServiceBinding, type Logger, implement, resourceHandlers } from '@crm/kit';
import { type PeopleServiceHandlers, loadPeople } from '@crm/proto';
import type { PeopleService } from './people.service';

export const PEOPLE_SERVICE_NAME = 'crm.people.v1.PeopleService';

export function peopleGrpcBinding(service: PeopleService, log: Logger): GrpcServiceBinding {
  const contacts = resourceHandlers(service.contacts);
  // Records travel as the generic message shape of their declaration (see kit/resource-rpc).
  const implementation = implement<PeopleServiceHandlers>(
    {
      ListContacts: contacts.list,
      GetContact: contacts.get,
      CreateContact: contacts.create,
      UpdateContact: contacts.update,
      DeleteContact: contacts.delete,
    } as never,
    log,
  );
  return { name: PEOPLE_SERVICE_NAME, definition: loadPeople().crm.people.v1.PeopleService.service, implementation };
}
