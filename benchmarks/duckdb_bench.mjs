// DuckDB contender and checker (installed by run.py into node_modules).
//
//   node duckdb_bench.mjs copy SRC.parquet OUT.parquet
//     Loads SRC into an in-memory table t (untimed), then times
//     COPY t TO 'OUT' (FORMAT parquet, COMPRESSION zstd). Prints
//     RESULT op_secs=<s> cpu_secs=<user+sys of the COPY> check=<rows,id_sum> out_bytes=<n> version=<duckdb>
//
//   node duckdb_bench.mjs check FILE.parquet
//     Prints VERIFY <summary of the id, x, flag and ts columns>, in the
//     format of `pybench.py expect`, to check another writer's output.
import { DuckDBInstance } from '@duckdb/node-api';
import { statSync } from 'node:fs';

const [cmd, a, b] = process.argv.slice(2);
const quote = (s) => "'" + s.replaceAll("'", "''") + "'";
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
// Exponent with at least two digits, as C's %e (Python, Go) prints it.
const fe = (v) => v.toExponential(5).replace(/e([+-])(\d)$/, 'e$10$2');
const one = async (sql) => (await con.runAndReadAll(sql)).getRows()[0];

if (cmd === 'copy' && a && b) {
  await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${quote(a)})`);
  const [n, idSum] = await one('SELECT count(*)::BIGINT, sum(id)::BIGINT FROM t');
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await con.run(`COPY t TO ${quote(b)} (FORMAT parquet, COMPRESSION zstd)`);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const c1 = process.cpuUsage(c0); // user+system of every thread, in µs
  const cpu = (c1.user + c1.system) / 1e6;
  const [version] = await one('SELECT version()');
  console.log(`RESULT op_secs=${secs.toFixed(6)} cpu_secs=${cpu.toFixed(3)} check=rows=${n},id_sum=${idSum} out_bytes=${statSync(b).size} version=${version}`);
} else if (cmd === 'check' && a) {
  const [n, idSum, xSum, flags, tsMin, tsMax] = await one(
    `SELECT count(*)::BIGINT, sum(id)::BIGINT, sum(x), sum(flag::INT)::BIGINT,
            epoch_ms(min(ts))::BIGINT, epoch_ms(max(ts))::BIGINT FROM read_parquet(${quote(a)})`);
  console.log(`VERIFY rows=${n},id_sum=${idSum},x_sum=${fe(xSum)},flag_sum=${flags},ts_min=${tsMin},ts_max=${tsMax}`);
} else {
  console.error('usage: node duckdb_bench.mjs copy SRC.parquet OUT.parquet | check FILE.parquet');
  process.exit(2);
}
