// duckcheck.mjs: reads Parquet files with DuckDB and checks them against a
// manifest written by parquetio's TestDuckDB.
//
//   node duckcheck.mjs MANIFEST.json MODULE_DIR
//
// MODULE_DIR is a folder where `npm install @duckdb/node-api` was run.
// The manifest is a list of {"file", "rows", "checks": [{"column", "row",
// "want"}]}; want is the value as DuckDB's VARCHAR cast prints it, or null.
// Prints one line per failure and exits 1 if any.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [manifestPath, moduleDir] = process.argv.slice(2);
const require = createRequire(moduleDir.replace(/\/?$/, '/') + 'package.json');
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = (s) => "'" + s.replaceAll("'", "''") + "'";
const ident = (s) => '"' + s.replaceAll('"', '""') + '"';
let failures = 0, checked = 0;
for (const m of manifest) {
  try {
    const n = await con.runAndReadAll(`SELECT count(*) FROM read_parquet(${q(m.file)})`);
    const rows = Number(n.getRows()[0][0]);
    if (rows !== m.rows) {
      console.log(`${m.file}: ${rows} rows, want ${m.rows}`);
      failures++;
    }
    for (const c of m.checks ?? []) {
      const r = await con.runAndReadAll(
        `SELECT CAST(${ident(c.column)} AS VARCHAR) FROM read_parquet(${q(m.file)}) LIMIT 1 OFFSET ${c.row}`);
      const got = r.getRows()[0][0];
      checked++;
      if (got !== c.want) {
        console.log(`${m.file}: column ${c.column} row ${c.row}: ${JSON.stringify(got)}, want ${JSON.stringify(c.want)}`);
        failures++;
      }
    }
  } catch (e) {
    console.log(`${m.file}: ${e.message.split('\n')[0]}`);
    failures++;
  }
}
console.log(`${manifest.length} files, ${checked} values checked, ${failures} failures`);
process.exit(failures ? 1 : 0);
