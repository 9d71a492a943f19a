// gen_nested.mjs: writes the nested-list, interval and null-type Parquet
// files of issue 30 with the producers users bring them from, and next to
// each X.parquet an X.json: the values as DuckDB reads the file, and what
// parquetio must make of it (numpy dtype and shape, or the column and row
// a refusal names).
//
//   mkdir /tmp/npm-x && cd /tmp/npm-x && npm init -y
//   npm i -E nodejs-polars@0.25.2 nodejs-polars-linux-x64-gnu@0.25.2 \
//     parquet-wasm@0.8.0 apache-arrow@21.2.0 hyparquet-writer@0.17.0 \
//     @duckdb/node-api@1.5.6-r.1
//   git clone https://github.com/apache/parquet-testing /some/parquet-testing
//   node gen_nested.mjs /tmp/npm-x /some/parquet-testing [OUT_DIR]
//
// pl_*: nodejs-polars 0.25.2 (polars' Rust writer); rs_*: parquet-wasm
// 0.8.0 (arrow-rs's ArrowWriter) fed Arrow IPC from apache-arrow; hyp_*:
// hyparquet-writer 0.17.0; duckone_*: DuckDB; ptlist_*: files of the Apache
// parquet-testing repository (commit
// 1a2a75127be06fc0123f03ebd36c966f7beda27d, Apache License 2.0, see
// LICENSE-parquet-testing.txt), copied unchanged.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [moduleDir, ptDir, outArg] = process.argv.slice(2);
if (!moduleDir || !ptDir) {
  console.error('usage: node gen_nested.mjs MODULE_DIR PARQUET_TESTING_DIR [OUT_DIR]');
  process.exit(2);
}
const out = outArg || dirname(fileURLToPath(import.meta.url));
const require = createRequire(moduleDir.replace(/\/?$/, '/') + 'package.json');
const load = async (name) => import(pathToFileURL(require.resolve(name)).href);
const pl = require('nodejs-polars');
const arrow = await load('apache-arrow');
const pw = require('parquet-wasm/node');
const hyp = await load('hyparquet-writer');
const duck = await load('@duckdb/node-api');
const db = await duck.DuckDBInstance.create(':memory:');
const con = await db.connect();
const rows = async (s) => (await con.runAndReadAll(s)).getRows();
const q = (s) => "'" + s.replaceAll("'", "''") + "'";
const ident = (s) => '"' + s.replaceAll('"', '""') + '"';
const version = (name) => JSON.parse(readFileSync(join(moduleDir, 'node_modules', name, 'package.json'), 'utf8')).version;

// record writes X.json: DuckDB's reading of every column (to_json, so
// nested lists stay lists; INTERVAL as months, days, microseconds), and
// what parquetio must do (expect).
async function record(name, producer, note, expect) {
  const file = join(out, name + '.parquet');
  const desc = await rows(`DESCRIBE SELECT * FROM read_parquet(${q(file)})`);
  const columns = [];
  for (const [col, type] of desc) {
    let e = `CAST(to_json(${ident(col)}) AS VARCHAR)`;
    if (type === 'INTERVAL') {
      const c = ident(col);
      e = `CASE WHEN ${c} IS NULL THEN NULL ELSE '[' || (datepart('year', ${c}) * 12 + datepart('month', ${c})) || ',' || datepart('day', ${c}) || ',' || (datepart('microseconds', ${c}) + 60000000 * (datepart('minute', ${c}) + 60 * datepart('hour', ${c}))) || ']' END`;
    }
    const vals = (await rows(`SELECT ${e} FROM read_parquet(${q(file)})`)).map((r) => (r[0] === null ? null : JSON.parse(r[0])));
    columns.push({ name: col, duck_type: type, values: vals });
  }
  const n = Number((await rows(`SELECT count(*) FROM read_parquet(${q(file)})`))[0][0]);
  const createdBy = (await rows(`SELECT created_by FROM parquet_file_metadata(${q(file)})`))[0][0];
  const schema = (await rows(`SELECT name, type, repetition_type, converted_type, logical_type FROM parquet_schema(${q(file)})`)).map((r) => r.map((v) => (v === null ? null : String(v))).join(' '));
  const m = { file: name + '.parquet', rows: n, producer, created_by: createdBy, note, parquet_schema: schema, expect, columns, read_by: 'duckdb ' + version('@duckdb/node-api') };
  writeFileSync(join(out, name + '.json'), JSON.stringify(m) + '\n');
}

const N = 6;
const seq = (k, f) => Array.from({ length: k }, (_, i) => f(i));

// ---- polars ----
{
  const pv = 'nodejs-polars ' + version('nodejs-polars');
  const write = (df, name) => df.writeParquet(join(out, name + '.parquet'));
  // nodejs-polars builds no nested list from JS arrays: the rows go in
  // as NDJSON, cast to the types wanted.
  const frame = (objs, casts) => pl.readJSON(Buffer.from(objs.map((o) => JSON.stringify(o)).join('\n') + '\n'), { format: 'lines' })
    .withColumns(...Object.entries(casts).map(([c, t]) => pl.col(c).cast(t)));
  let df = frame(seq(N, (i) => ({ k: i, s: { pair: [i, -i] } })), { k: pl.Int64, s: pl.Struct([new pl.Field('pair', pl.List(pl.Int32))]) });
  write(df, 'pl_struct_pair');
  await record('pl_struct_pair', pv, 'struct{pair: list<i32>}, every pair of 2', { dtype: [['k', '<i8'], ['s', [['pair', '<i4', [2]]]]], shape: [N] });
  df = frame(seq(N, (i) => ({ ll: [[i, i + 1, i + 2], [10 * i, 10 * i + 1, 10 * i + 2]] })), { ll: pl.List(pl.List(pl.Int32)) });
  write(df, 'pl_list_list');
  await record('pl_list_list', pv, 'list<list<i32>>, 2 lists of 3 in every row', { dtype: '<i4', shape: [N, 2, 3] });
  df = frame(seq(N, (i) => ({ ll: i === 3 ? [[i, i], [i]] : [[i, i], [i, i]] })), { ll: pl.List(pl.List(pl.Int32)) });
  write(df, 'pl_list_list_ragged');
  await record('pl_list_list_ragged', pv, 'list<list<i32>>, an inner list of 1 in row 3', { refuse: { column: 'll', row: 3, word: 'varying length' } });
  df = frame(seq(N, (i) => ({ ll: i === 2 ? null : [[i + 0.5, -i], [i, 2 * i]] })), { ll: pl.List(pl.List(pl.Float64)) });
  write(df, 'pl_list_list_nullrow');
  await record('pl_list_list_nullrow', pv, 'list<list<f64>>, row 2 null: NaN in every place', { dtype: '<f8', shape: [N, 2, 2] });
  df = frame(seq(N, (i) => ({ k: i, s: i === 1 ? null : { pair: [i, -i] } })), { k: pl.Int64, s: pl.Struct([new pl.Field('pair', pl.List(pl.Int32))]) });
  write(df, 'pl_struct_pair_null');
  await record('pl_struct_pair_null', pv, 'struct{pair: list<i32>}, the struct null in row 1', { refuse: { column: 's', row: 1, word: 'null list' } });
}

// ---- arrow-rs (parquet-wasm) ----
{
  const rv = 'parquet-wasm ' + version('parquet-wasm') + ' (arrow-rs), apache-arrow ' + version('apache-arrow');
  const write = (table, name) => {
    const t = pw.Table.fromIPCStream(arrow.tableToIPC(table, 'stream'));
    writeFileSync(join(out, name + '.parquet'), pw.writeParquet(t));
  };
  const I32 = () => new arrow.Int32();
  const list = (t) => new arrow.List(new arrow.Field('item', t, false));
  const fsl = (n, t) => new arrow.FixedSizeList(n, new arrow.Field('item', t, false));
  const vec = (data, type) => arrow.vectorFromArray(data, type);
  const table = (cols) => new arrow.Table(Object.fromEntries(cols));

  const structT = new arrow.Struct([new arrow.Field('pair', list(I32()), false)]);
  write(table([['k', vec(seq(N, (i) => i), I32())], ['s', vec(seq(N, (i) => ({ pair: [i, -i] })), structT)]]), 'rs_struct_pair');
  await record('rs_struct_pair', rv, 'struct{pair: list<i32>}, every pair of 2', { dtype: [['k', '<i4'], ['s', [['pair', '<i4', [2]]]]], shape: [N] });

  write(table([['ll', vec(seq(N, (i) => [[i, i + 1, i + 2], [10 * i, 10 * i + 1, 10 * i + 2]]), list(list(I32())))]]), 'rs_list_list');
  await record('rs_list_list', rv, 'list<list<i32>>, 2 lists of 3 in every row', { dtype: '<i4', shape: [N, 2, 3] });

  write(table([['ff', vec(seq(N, (i) => [[i, i + 1], [i + 2, i + 3], [i + 4, i + 5]]), fsl(3, fsl(2, I32())))]]), 'rs_fsl_fsl');
  await record('rs_fsl_fsl', rv, 'fixed_size_list<fixed_size_list<i32, 2>, 3>', { dtype: '<i4', shape: [N, 3, 2] });

  // A list of lists whose inner list is null in row 4.
  const nullable = new arrow.List(new arrow.Field('item', new arrow.List(new arrow.Field('item', I32(), false)), true));
  write(table([['ln', vec(seq(N, (i) => (i === 4 ? [[i, i], null] : [[i, i], [i, i]])), nullable)]]), 'rs_list_null_inner');
  await record('rs_list_null_inner', rv, 'list<list<i32>>, the second inner list of row 4 null', { refuse: { column: 'ln', row: 4, word: 'null' } });

  const ivYM = arrow.makeData({ type: new arrow.IntervalYearMonth(), length: N, data: Int32Array.from(seq(N, (i) => 13 * i + 5)) });
  write(new arrow.Table({ ym: new arrow.Vector([ivYM]) }), 'rs_interval_ym');
  await record('rs_interval_ym', rv, 'one interval_year_month column', { dtype: [['ym', [['months', '<u4'], ['days', '<u4'], ['milliseconds', '<u4']]]], shape: [N] });

  const dt = new Int32Array(2 * N);
  for (let i = 0; i < N; i++) {
    dt[2 * i] = 3 * i;
    dt[2 * i + 1] = 1234 * i;
  }
  const ivDT = arrow.makeData({ type: new arrow.IntervalDayTime(), length: N, data: dt });
  write(new arrow.Table({ dt: new arrow.Vector([ivDT]) }), 'rs_interval_dt');
  await record('rs_interval_dt', rv, 'one interval_day_time column', { dtype: [['dt', [['months', '<u4'], ['days', '<u4'], ['milliseconds', '<u4']]]], shape: [N] });

  const nul = arrow.makeData({ type: new arrow.Null(), length: N });
  const schema = new arrow.Schema([new arrow.Field('k', I32(), false), new arrow.Field('nothing', new arrow.Null(), false)]);
  const kd = vec(seq(N, (i) => i), I32()).data[0];
  const rb = new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: N, children: [kd, nul] }));
  write(new arrow.Table([rb]), 'rs_null_type');
  await record('rs_null_type', rv, 'a column of Arrow type Null (non-nullable field) beside an int column', { refuse: { column: 'nothing', word: 'null type' } });
}

// ---- hyparquet-writer ----
{
  const hv = 'hyparquet-writer ' + version('hyparquet-writer');
  const write = (columnData, schema, name) => {
    const b = hyp.parquetWriteBuffer({ columnData, schema });
    writeFileSync(join(out, name + '.parquet'), new Uint8Array(b));
  };
  write(
    [{ name: 'k', data: seq(N, (i) => i) }, { name: 's', data: seq(N, (i) => ({ pair: [i, -i] })) }],
    [
      { name: 'root', num_children: 2 },
      { name: 'k', type: 'INT32', repetition_type: 'REQUIRED' },
      { name: 's', repetition_type: 'REQUIRED', num_children: 1 },
      { name: 'pair', repetition_type: 'REQUIRED', converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      { name: 'element', type: 'INT32', repetition_type: 'REQUIRED' },
    ],
    'hyp_struct_pair');
  await record('hyp_struct_pair', hv, 'struct{pair: list<i32>}, every pair of 2', { dtype: [['k', '<i4'], ['s', [['pair', '<i4', [2]]]]], shape: [N] });
  write(
    [{ name: 'll', data: seq(N, (i) => [[i, i + 1, i + 2], [10 * i, 10 * i + 1, 10 * i + 2]]) }],
    [
      { name: 'root', num_children: 1 },
      { name: 'll', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      { name: 'element', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      { name: 'element', type: 'INT32', repetition_type: 'OPTIONAL' },
    ],
    'hyp_list_list');
  await record('hyp_list_list', hv, 'list<list<i32>>, 2 lists of 3 in every row (every level OPTIONAL)', { dtype: '<i4', shape: [N, 2, 3] });
  write(
    [{ name: 'k', data: seq(N, (i) => i) }, { name: 'ls', data: seq(N, (i) => [{ a: [i, i], b: i }, { a: [-i, -i], b: -i }]) }],
    [
      { name: 'root', num_children: 2 },
      { name: 'k', type: 'INT32', repetition_type: 'REQUIRED' },
      { name: 'ls', repetition_type: 'REQUIRED', converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      { name: 'element', repetition_type: 'REQUIRED', num_children: 2 },
      { name: 'a', repetition_type: 'REQUIRED', converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      { name: 'element', type: 'INT32', repetition_type: 'REQUIRED' },
      { name: 'b', type: 'INT32', repetition_type: 'REQUIRED' },
    ],
    'hyp_list_struct_list');
  await record('hyp_list_struct_list', hv, 'list<struct{a: list<i32>, b: i32}>, 2 structs whose a holds 2', { dtype: [['k', '<i4'], ['ls', [['a', '<i4', [2]], ['b', '<i4']], [2]]], shape: [N] });
}

// ---- DuckDB: a one-column INTERVAL file, a column of empty lists ----
{
  const file = join(out, 'duckone_interval.parquet');
  await con.run(`COPY (SELECT to_months(i) + to_days(2 * i) + to_milliseconds(1500 * i) AS iv FROM range(${N}) t(i)) TO ${q(file)} (FORMAT parquet)`);
  await record('duckone_interval', 'duckdb ' + version('@duckdb/node-api'), 'one INTERVAL column', { dtype: [['iv', [['months', '<u4'], ['days', '<u4'], ['milliseconds', '<u4']]]], shape: [N] });
  const empty = join(out, 'duckone_empty_lists.parquet');
  await con.run(`COPY (SELECT []::INTEGER[] AS l FROM range(${N})) TO ${q(empty)} (FORMAT parquet)`);
  await record('duckone_empty_lists', 'duckdb ' + version('@duckdb/node-api'), 'one column of empty lists: rows of no bytes', { dtype: '<i4', shape: [N, 0] });
}

// ---- parquet-testing: legacy and null lists ----
for (const [src, note, expect] of [
  ['data/old_list_structure.parquet', 'a legacy 2-level list of lists (parquet-mr), one row [[1, 2], [3, 4]]', { dtype: '<i4', shape: [1, 2, 2] }],
  ['data/null_list.parquet', 'one row, an empty list of elements of Arrow type Null (parquet-rs 9)', { refuse: { column: 'emptylist', word: 'null type' } }],
]) {
  const name = 'ptlist_' + src.split('/').pop().replace(/\.parquet$/, '');
  copyFileSync(join(ptDir, src), join(out, name + '.parquet'));
  await record(name, 'parquet-testing ' + src, note, expect);
}
