export { migrations } from './migrations';
export { createActivitiesService, type ActivitiesService, type EnrollmentTaskInput } from './activities.service';
export { activitiesGrpcBinding, ACTIVITIES_SERVICE_NAME } from './activities.grpc';
export { startActivities, type ActivitiesRuntime, type RunningActivities } from './main';
