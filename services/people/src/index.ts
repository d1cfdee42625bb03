export { migrations } from './migrations';
export { createPeopleService, type PeopleService } from './people.service';
export { peopleGrpcBinding, PEOPLE_SERVICE_NAME } from './people.grpc';
export { startPeople, type PeopleRuntime, type RunningPeople } from './main';
