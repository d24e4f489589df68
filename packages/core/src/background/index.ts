export { type QueueTask, SerialQueue, type SerialQueueOptions } from './serial-queue';
export { withTimeout } from './timeout';
export {
  type PrefetchOutcome,
  PrefetchSlot,
  type PrefetchSlotOptions,
  type StartResult,
} from './prefetch-slot';
