/**
 * Resource declarations: part of the API contract, shared by the gateway (validation, OpenAPI) and
 * the owning service (SQL, rules). Each is owned by one bounded context, named in its file.
 */
export { contacts } from './contacts.resource';
export { tasks, ACTIVITY_CHANNELS, TASK_STATUSES } from './tasks.resource';
export { callLogs, CALL_MODES, CALL_OUTCOMES, CALL_STATUSES } from './call-logs.resource';
export { meetings, MEETING_OUTCOMES, MEETING_STATUSES } from './meetings.resource';
export { organizations } from './organizations.resource';
export { pools, MAX_POOL_MEMBERS_PER_CALL, parsePoolMembersBody } from './pools.resource';
export { poolContacts } from './pool-contacts.resource';
