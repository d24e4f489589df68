import { describe, expect, it } from 'vitest';
import { CliError } from '../provider-cli/args';
import {
  IMPORT_MAX_NEW_COLUMNS,
  MAX_COLUMN_NAME_LENGTH,
  MAX_ROW_COLUMNS,
  addMissingColumns,
  sqliteRowProblem,
} from './index';

/**
 * A handle with one table whose columns PRAGMA table_info reports and ALTER TABLE extends; core
 * holds no native SQLite, so the cap is proven here on the SQL it issues and, against real SQLite,
 * by the importing providers' tests (holographic's CLI import).
 */
function table(columns: string[]) {
  const altered: string[] = [];
  return {
    altered,
    columns,
    prepare(sql: string) {
      return {
        all: () => (sql.startsWith('PRAGMA table_info') ? columns.map((name) => ({ name })) : []),
        get: () => undefined,
        run: () => ({ changes: 0, lastInsertRowid: 0 }),
      };
    },
    exec(sql: string) {
      altered.push(sql);
      const name = /ADD COLUMN "([^"]+)"$/.exec(sql)?.[1];
      if (name) columns.push(name);
    },
  };
}

const row = (names: string[]) => Object.fromEntries(names.map((n) => [n, 1]));
const thrown = (fn: () => void): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('addMissingColumns (an import cannot add arbitrary columns, #12)', () => {
  it('adds the few columns a newer schema has, once per table', () => {
    const db = table(['id', 'content']);
    const known = new Map<string, Set<string>>();
    addMissingColumns(db, 'facts', row(['id', 'content', 'trust']), known);
    addMissingColumns(db, 'facts', row(['id', 'trust', 'helpful']), known);
    expect(db.altered).toEqual([
      'ALTER TABLE "facts" ADD COLUMN "trust"',
      'ALTER TABLE "facts" ADD COLUMN "helpful"',
    ]);
  });

  it(`adds at most ${IMPORT_MAX_NEW_COLUMNS} new columns per table in one import, with a clear error past it`, () => {
    const db = table(['id']);
    const known = new Map<string, Set<string>>();
    const names = Array.from({ length: IMPORT_MAX_NEW_COLUMNS }, (_, i) => `c${i}`);
    // Spread over many rows, as a crafted export would do it.
    for (const name of names) addMissingColumns(db, 'facts', row(['id', name]), known);
    expect(db.columns).toHaveLength(IMPORT_MAX_NEW_COLUMNS + 1);
    const error = thrown(() => addMissingColumns(db, 'facts', row(['one_too_many']), known));
    expect(CliError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      new RegExp(
        `table 'facts' would gain more than ${IMPORT_MAX_NEW_COLUMNS} new columns \\('one_too_many'\\)`,
      ),
    );
    expect(db.columns).not.toContain('one_too_many');
    // Another table has its own allowance; the cap can be set by the caller.
    addMissingColumns(db, 'entities', row(['x']), known);
    expect(
      thrown(() => addMissingColumns(table([]), 't', row(['a', 'b']), new Map(), { maxNewColumns: 1 })),
    ).toBeInstanceOf(CliError);
  });

  it('refuses a column name that is not an identifier before any ALTER', () => {
    for (const name of [
      'x; DROP TABLE facts',
      'a"b',
      '1abc',
      '',
      'é',
      'x'.repeat(MAX_COLUMN_NAME_LENGTH + 1),
    ]) {
      const db = table(['id']);
      const error = thrown(() => addMissingColumns(db, 'facts', row(['ok', name]), new Map()));
      expect(CliError.isInstance(error), name).toBe(true);
      expect((error as Error).message).toContain('is not a valid column name');
      expect(db.altered).toEqual([]);
    }
  });
});

describe('sqliteRowProblem', () => {
  it('names rows with too many columns or over-long names, before anything is written', () => {
    expect(sqliteRowProblem(row(['id', 'content']))).toBeUndefined();
    expect(sqliteRowProblem(row(Array.from({ length: MAX_ROW_COLUMNS + 1 }, (_, i) => `c${i}`)))).toBe(
      `row has ${MAX_ROW_COLUMNS + 1} columns (at most ${MAX_ROW_COLUMNS})`,
    );
    expect(sqliteRowProblem(row(['x'.repeat(MAX_COLUMN_NAME_LENGTH + 1)]))).toMatch(/^invalid column name/);
    expect(sqliteRowProblem({ 'x; DROP': 1 })).toBe("invalid column name 'x; DROP'");
  });
});
