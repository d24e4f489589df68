export type { LocomoTurn, Retriever, RetrieverSession } from '../locomo/types';
