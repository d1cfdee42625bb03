/**
 * The activities context's contract: resource declarations and enumerations shared by the gateway
 * and the activities service.
 */
export { tasks, ACTIVITY_CHANNELS, TASK_STATUSES } from './tasks.resource';
export { callLogs, CALL_MODES, CALL_OUTCOMES, CALL_STATUSES } from './call-logs.resource';
export { meetings, MEETING_OUTCOMES, MEETING_STATUSES } from './meetings.resource';
export { activitiesApi } from './activities.api';
export { ACTIVITIES_ERRORS, ActivitiesError, ActivitiesErrorCode } from './activities.errors';
