import { AVAILABILITY } from './availability';
import { CONTEXT } from './context';
import { DURABILITY } from './durability';
import { FAULTS } from './faults';
import type { CheckDefinition } from './helpers';
import { LIFECYCLE } from './lifecycle';
import { MIRROR } from './mirror';
import { PERSISTENCE } from './persistence';
import { PREFETCH } from './prefetch';
import { REMOTE } from './remote';
import { SAFETY } from './safety';
import { SYNC } from './sync';
import { TOOLS } from './tools';

export type { CheckDefinition } from './helpers';

/**
 * Every check, one file per group, in the order the suite runs them. Ids are stable: skips and
 * reports refer to them.
 */
export const CHECKS: readonly CheckDefinition[] = [
  ...AVAILABILITY,
  ...LIFECYCLE,
  ...TOOLS,
  ...CONTEXT,
  ...PREFETCH,
  ...SYNC,
  ...PERSISTENCE,
  ...MIRROR,
  ...REMOTE,
  ...FAULTS,
  ...DURABILITY,
  ...SAFETY,
];
