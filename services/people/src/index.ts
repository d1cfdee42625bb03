export { migrations } from './migrations';
export { createPeopleService, type PeopleService } from './people.service';
export { peopleGrpcBinding } from './people.grpc';
export { peopleService } from './main';
