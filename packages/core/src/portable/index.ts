export {
  addMissingColumns,
  decodeSqliteRow,
  encodeSqliteRow,
  exportTableRows,
  IMPORT_MAX_NEW_COLUMNS,
  insertRow,
  isSqlIdentifier,
  MAX_COLUMN_NAME_LENGTH,
  MAX_ROW_COLUMNS,
  quoteIdent,
  type SqliteHandle,
  type SqliteRow,
  sqliteRowProblem,
  tableColumns,
  tableExists,
} from './sqlite-rows';
export { IMPORT_LOCK_WAIT_MS, importTransaction } from './import-transaction';
