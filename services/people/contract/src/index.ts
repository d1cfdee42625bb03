/**
 * The people context's contract: what the gateway and the people service both need to agree on
 * (resource declarations, body rules, the route table). The service's code stays in services/people.
 */
export { contacts } from './contacts.resource';
export { organizations } from './organizations.resource';
export { pools, MAX_POOL_MEMBERS_PER_CALL, parsePoolMembersBody } from './pools.resource';
export { poolContacts } from './pool-contacts.resource';
export { PEOPLE_ERRORS, PeopleError, PeopleErrorCode } from './people.errors';
export { peopleApi } from './people.api';
export { contactReference, organizationReference } from './people.references';
