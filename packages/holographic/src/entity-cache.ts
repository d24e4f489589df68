/**
 * In-memory mirror of the `entities` table for one connection, so entity resolution on the ingest
 * path is two map lookups instead of two full-table LIKE scans per name. It reproduces the SQL it
 * replaces exactly: `name LIKE ?` and the comma-delimited alias match are ASCII-case-insensitive
 * (SQLite's LIKE without ICU) and the lowest entity_id wins. Any change to `entities` made outside
 * this mirror (a Python process, another handle, raw SQL on this one) bumps `hm_meta.entities_version`
 * through pure-SQL triggers (schema.ts); a changed version reloads the mirror.
 */
import type { Db } from './connection';

export interface EntityRow {
  entity_id: number;
  name: string;
  aliases: string | null;
}

/** SQLite's LIKE folds ASCII letters only. */
export function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

export class EntityCache {
  /** Rows in entity_id order; `generation` changes whenever they are reloaded from scratch. */
  rows: EntityRow[] = [];
  generation = 0;
  private byName = new Map<string, number>();
  private byAlias = new Map<string, number>();
  private nameOf = new Map<number, string>();
  private dataVersion = -1;
  private readonly versionStmt;
  private readonly insertStmt;

  constructor(private readonly db: Db) {
    this.versionStmt = db.prepare("SELECT value FROM hm_meta WHERE key = 'entities_version'").pluck();
    this.insertStmt = db.prepare('INSERT INTO entities (name) VALUES (?)');
  }

  /** Reload when `entities` changed behind the mirror's back (one indexed read when it did not). */
  refresh(): void {
    const version = Number(this.versionStmt.get() ?? -2);
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    this.rows = [];
    this.byName.clear();
    this.byAlias.clear();
    this.nameOf.clear();
    try {
      for (const row of this.db
        .prepare('SELECT entity_id, name, aliases FROM entities ORDER BY entity_id')
        .iterate() as Iterable<EntityRow>)
        this.remember(row);
    } catch {
      // No entities table (foreign file): resolution falls back to inserting, which will throw.
    }
    this.generation++;
  }

  /** Id of the entity named (or aliased) `name`, creating it when unknown. */
  resolve(name: string): number {
    const key = asciiLower(name);
    const byName = this.byName.get(key);
    if (byName !== undefined) return byName;
    // A comma inside the name could span two aliases in the SQL match: ask SQLite itself.
    const byAlias = name.includes(',') ? this.aliasViaSql(name) : this.byAlias.get(key);
    if (byAlias !== undefined) return byAlias;
    const id = Number(this.insertStmt.run(name).lastInsertRowid);
    this.remember({ entity_id: id, name, aliases: '' });
    // Our own insert bumped the version through the trigger: the mirror already has it.
    this.dataVersion = Number(this.versionStmt.get() ?? -2);
    return id;
  }

  name(entityId: number): string | undefined {
    return this.nameOf.get(entityId);
  }

  private remember(row: EntityRow): void {
    this.rows.push(row);
    this.nameOf.set(row.entity_id, row.name);
    const key = asciiLower(row.name);
    if (!this.byName.has(key)) this.byName.set(key, row.entity_id);
    for (const alias of (row.aliases ?? '').split(',')) {
      if (!alias) continue;
      const a = asciiLower(alias);
      if (!this.byAlias.has(a)) this.byAlias.set(a, row.entity_id);
    }
  }

  private aliasViaSql(name: string): number | undefined {
    const escaped = name.replace(/[\\%_]/g, (c) => `\\${c}`);
    const row = this.db
      .prepare(
        "SELECT entity_id FROM entities WHERE ',' || aliases || ',' LIKE '%,' || ? || ',%' ESCAPE '\\' ORDER BY entity_id",
      )
      .get(escaped) as { entity_id: number } | undefined;
    return row?.entity_id;
  }
}

const caches = new WeakMap<Db, EntityCache>();

/** The connection's shared mirror (every FactStore on one shared connection sees the same one). */
export function entityCacheFor(db: Db): EntityCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new EntityCache(db);
    caches.set(db, cache);
  }
  cache.refresh();
  return cache;
}
