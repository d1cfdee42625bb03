import { directoryApi, userReference } from '@crm/directory-contract';
import { type SqlServiceDefinition, withReferenceChecks } from '@crm/kit';
import { contactReference, organizationReference, peopleApi } from '@crm/people-contract';
import { activitiesGrpcBinding } from './activities.grpc';
import { subscribeContactDeletions } from './contact-deletions.consumer';
import { type ActivitiesService, createActivitiesService } from './activities.service';
import { migrations } from './migrations';

/** The activities service: tasks, call logs and meetings over ActivitiesService. */
export const activitiesService: SqlServiceDefinition<ActivitiesService, { people: typeof peopleApi; directory: typeof directoryApi }> = {
  name: 'activities',
  migrations,
  peers: { people: peopleApi, directory: directoryApi },
  create({ db, cursors, afterCommit, peers }) {
    const service = createActivitiesService({ db, cursors, afterCommit });
    // Every id that names another context's record is checked in the caller's workspace before the
    // write (gateway/README.md, "References").
    const contact = contactReference(peers.people);
    const user = userReference(peers.directory);
    return {
      ...service,
      tasks: withReferenceChecks(service.tasks, { contact_id: contact, organization_id: organizationReference(peers.people), assignee_id: user }),
      callLogs: withReferenceChecks(service.callLogs, { contact_id: contact, owner_id: user }),
      meetings: withReferenceChecks(service.meetings, { contact_id: contact, owner_id: user }),
    };
  },
  bindings: (service, log) => [activitiesGrpcBinding(service, log)],
  // A deleted contact's activities stay, without the contact (contact-deletions.consumer.ts).
  consumers: async (_service, { bus, db }) => [await subscribeContactDeletions(bus, db)],
};
