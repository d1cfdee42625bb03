export { migrations } from './migrations';
export { createActivitiesService, type ActivitiesService, type EnrollmentTaskInput } from './activities.service';
export { activitiesGrpcBinding } from './activities.grpc';
export { startActivities, type ActivitiesRuntime, type RunningActivities } from './main';
