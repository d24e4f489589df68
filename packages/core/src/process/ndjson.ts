/** What `parseNdjson` found in a program's output. */
export interface NdjsonLines {
  /** Every line that parsed as JSON, in order. */
  records: unknown[];
  /** Non-blank lines that did not parse (progress text, a line cut by the output cap, garbage). */
  invalidLines: number;
  /** The first such line, cut to 200 characters, for an error message. */
  firstInvalid?: string;
}

/**
 * Parse newline-delimited JSON (`--format json` of CLIs such as `brv`): one value per line, blank
 * lines ignored, `\r\n` and a leading BOM accepted. Lines that are not JSON are counted, not
 * thrown: a CLI may interleave a warning, and a line cut by the runner's output cap is torn.
 */
export function parseNdjson(text: string): NdjsonLines {
  const records: unknown[] = [];
  let invalidLines = 0;
  let firstInvalid: string | undefined;
  for (const raw of text.replace(/^\uFEFF/, '').split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    try {
      records.push(JSON.parse(line));
    } catch {
      invalidLines += 1;
      firstInvalid ??= line.slice(0, 200);
    }
  }
  return { records, invalidLines, ...(firstInvalid !== undefined ? { firstInvalid } : {}) };
}
