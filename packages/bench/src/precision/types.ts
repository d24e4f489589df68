/**
 * The precision protocol's data: stores of items with the questions asked against them. A
 * question either has gold items in its store (`answerable`) or none at all (`cross`: a question
 * about another store's people; `off-topic`: a general question no memory answers), where anything
 * injected is a false activation.
 */
import type { LocomoTurn } from '../locomo/types';

export type ProbeKind = 'answerable' | 'cross' | 'off-topic';

/**
 * Which side of the tuning split a question is on (decision 0404): tuning looked only at `dev`;
 * `held-out` confirms. Absent when the question mixes both (an off-topic question of one side asked
 * against a store of the other).
 */
export type Split = 'dev' | 'held-out';
export const PROBE_KINDS: readonly ProbeKind[] = ['answerable', 'cross', 'off-topic'];

export interface Probe {
  query: string;
  kind: ProbeKind;
  /** Ids of the stored items that answer it (empty for `cross` and `off-topic`). */
  gold: readonly string[];
  /** LoCoMo category of an answerable question, when it has one. */
  category?: number;
  split?: Split;
}

/** One store: the items written to it, in order, and the questions asked against it. */
export interface ProbeStore {
  id: string;
  turns: LocomoTurn[];
  probes: Probe[];
}

/** What one prefetch injected, attributed to stored items. */
export interface ProbeOutcome {
  kind: ProbeKind;
  category?: number;
  split?: Split;
  /** Gold items of the question (0 for no-answer kinds). */
  gold: number;
  /** Injected records (lines attributed to stored items). */
  records: number;
  /** Injected records that carry at least one gold item. */
  relevant: number;
  /** Gold items among everything injected. */
  found: number;
  /** Characters of the injected text ("" = 0). */
  chars: number;
}
