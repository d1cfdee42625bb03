export { migrations } from './migrations';
export { createActivitiesService, type ActivitiesService, type EnrollmentTaskInput } from './activities.service';
export { activitiesGrpcBinding } from './activities.grpc';
export { activitiesService } from './main';
