// matduck.mjs: DuckDB reads the Parquet files npyflow wrote from MATLAB
// tables and timetables, and checks each column's type and values against
// a manifest written by pipeline's TestMATTablesDuckDB.
//
//   node matduck.mjs MANIFEST.json MODULE_DIR
//
// MODULE_DIR is a folder where `npm install @duckdb/node-api` was run.
// The manifest is a list of {"file", "rows", "columns": [{"name", "type",
// "values", "select"}], "absent": [names]}: type is DuckDB's name of the
// column type, values the rows in order of the column or, if given, of
// the SQL expression select (such as "c"[1], a list's first element), a number (NaN as "NaN") compared as a
// number, a string compared with DuckDB's text of the value, or null for
// a NULL (a MATLAB <missing>); absent lists columns the file must not
// have (validity fields, written as the NULLs instead).
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
const fail = (msg) => { console.log(msg); failures++; };
for (const m of manifest) {
  try {
    const d = await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${q(m.file)})`);
    const types = new Map(d.getRows().map((r) => [r[0], r[1]]));
    const n = await con.runAndReadAll(`SELECT count(*) FROM read_parquet(${q(m.file)})`);
    if (Number(n.getRows()[0][0]) !== m.rows) fail(`${m.file}: ${n.getRows()[0][0]} rows, want ${m.rows}`);
    for (const a of m.absent ?? []) {
      checked++;
      if (types.has(a)) fail(`${m.file}: has column ${a}, which should be NULLs of another`);
    }
    for (const c of m.columns) {
      if (types.get(c.name) !== c.type) {
        fail(`${m.file}: column ${c.name}: type ${types.get(c.name)}, want ${c.type}`);
        continue;
      }
      const r = await con.runAndReadAll(`SELECT ${c.select ?? ident(c.name)} FROM read_parquet(${q(m.file)})`);
      const got = r.getRows().map((row) => row[0]);
      c.values.forEach((want, i) => {
        checked++;
        const g = got[i];
        let ok;
        if (want === null) ok = g === null;
        else if (want === 'NaN') ok = typeof g === 'number' && Number.isNaN(g);
        else if (typeof want === 'number') ok = typeof g === 'number' && Math.abs(g - want) <= 1e-12 * Math.max(1, Math.abs(want));
        else ok = g !== null && String(g) === want;
        if (!ok) fail(`${m.file}: column ${c.name} row ${i}: ${g === null ? 'null' : String(g)}, want ${JSON.stringify(want)}`);
      });
    }
  } catch (e) {
    fail(`${m.file}: ${e.message}`);
  }
}
console.log(`${manifest.length} files, ${checked} values checked, ${failures} failures`);
process.exit(failures ? 1 : 0);
