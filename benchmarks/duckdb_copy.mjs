// DuckDB contender: loads SRC.parquet into an in-memory table (untimed),
// then times COPY t TO 'OUT.parquet' (FORMAT parquet, COMPRESSION zstd).
// Prints: RESULT op_secs=<seconds> check=<rows,id_sum> out_bytes=<n>
//
// usage: node duckdb_copy.mjs SRC.parquet OUT.parquet
import { DuckDBInstance } from '@duckdb/node-api';
import { statSync } from 'node:fs';

const [src, out] = process.argv.slice(2);
if (!src || !out) {
  console.error('usage: node duckdb_copy.mjs SRC.parquet OUT.parquet');
  process.exit(2);
}
const quote = (s) => "'" + s.replaceAll("'", "''") + "'";

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${quote(src)})`);
const rows = await con.runAndReadAll('SELECT count(*)::BIGINT, sum(id)::BIGINT FROM t');
const [n, idSum] = rows.getRows()[0];

const t0 = process.hrtime.bigint();
await con.run(`COPY t TO ${quote(out)} (FORMAT parquet, COMPRESSION zstd)`);
const secs = Number(process.hrtime.bigint() - t0) / 1e9;

const version = (await con.runAndReadAll('SELECT version()')).getRows()[0][0];
console.log(`RESULT op_secs=${secs.toFixed(6)} check=rows=${n},id_sum=${idSum} out_bytes=${statSync(out).size} version=${version}`);
con.closeSync?.();
