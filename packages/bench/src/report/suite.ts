import type { Provenance } from './machine';

/** What every suite returns; written to `<out>/<suite>.json` and rendered into the README. */
export interface SuiteResult {
  suite: string;
  title: string;
  provenance: Provenance;
  /** Wall-clock seconds the suite took. */
  seconds: number;
  /** Machine-readable results (suite-specific shape). */
  data: unknown;
  /** The suite's README section (Markdown, starting at an H2). */
  markdown: string;
  /** One-line findings for the README's "Headline" list (numbers rendered from `data`). */
  headline?: string[];
  /** SVG files to write beside the report: file name → content. */
  svgs: Record<string, string>;
}

export interface SuiteContext {
  full: boolean;
  retrievers: string[] | null;
  outDir: string;
  command: string;
  provenance: Provenance;
  log: (message: string) => void;
}
