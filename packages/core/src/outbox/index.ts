export { Outbox, type OutboxEntry, type OutboxOptions } from './outbox';
