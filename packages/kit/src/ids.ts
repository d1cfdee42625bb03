import { v7 as uuidv7 } from 'uuid';

/** Every id the platform mints: UUIDv7, time-ordered and still a valid UUID path parameter. */
export const newId = (): string => uuidv7();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID.test(value);
