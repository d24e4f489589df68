/** Edge relations. Positional ones say where a record sits (the next passage), not what it means. */
export const POSITIONAL_RELATIONS: ReadonlySet<string> = new Set(['next_segment']);
