export { type QueueTask, SerialQueue, type SerialQueueOptions } from './serial-queue';
export { withTimeout } from './timeout';
export { TurnStampedCache } from './turn-stamped-cache';
