// Reads a Hive-partitioned Parquet dataset with DuckDB (hive_partitioning)
// and prints per-partition aggregates as JSON, for shard_e2e_test.go.
// usage: node duckhive.mjs <dataset dir> <dir with node_modules/@duckdb/node-api>
import { createRequire } from 'node:module';
import path from 'node:path';

const [root, mods] = process.argv.slice(2);
const require = createRequire(path.join(mods, 'package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const glob = path.join(root, '**', '*.parquet').replaceAll("'", "''");
const r = await con.runAndReadAll(`
  SELECT run, station, count(*) AS n, sum(id) AS idsum, count(*) FILTER (WHERE ok) AS ok, sum(k) AS ksum
  FROM read_parquet('${glob}', hive_partitioning = true)
  GROUP BY run, station ORDER BY run, station`);
const rows = r.getRowObjectsJson().map(o => ({
  run: o.run, station: o.station, n: Number(o.n), idsum: Number(o.idsum), ok: Number(o.ok), ksum: Number(o.ksum),
}));
console.log(JSON.stringify(rows));
