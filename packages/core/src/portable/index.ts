export {
  addMissingColumns,
  decodeSqliteRow,
  encodeSqliteRow,
  exportTableRows,
  insertRow,
  isSqlIdentifier,
  quoteIdent,
  type SqliteHandle,
  type SqliteRow,
  sqliteRowProblem,
  tableColumns,
  tableExists,
} from './sqlite-rows';
export { IMPORT_LOCK_WAIT_MS, importTransaction } from './import-transaction';
