export { migrations } from './migrations';
export { createPeopleService, type PeopleService } from './people.service';
export { peopleGrpcBinding } from './people.grpc';
export { startPeople, type PeopleRuntime, type RunningPeople } from './main';
