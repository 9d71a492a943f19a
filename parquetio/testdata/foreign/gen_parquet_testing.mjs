// gen_parquet_testing.mjs: copies files of the Apache parquet-testing
// repository (https://github.com/apache/parquet-testing, Apache License
// 2.0, see LICENSE-parquet-testing.txt) into this folder as pt_*.parquet
// and writes next to each pt_X.json: the values as DuckDB reads them from
// the copied file, and how parquetio must read it.
//
//   cd /some/scratch && npm install @duckdb/node-api
//   git clone https://github.com/apache/parquet-testing /some/parquet-testing
//   node gen_parquet_testing.mjs MODULE_DIR PARQUET_TESTING_DIR [OUT_DIR]
//
// The files were taken at parquet-testing commit
// 1a2a75127be06fc0123f03ebd36c966f7beda27d; the values come from DuckDB
// (@duckdb/node-api 1.5.6), in gen_duckdb.mjs's forms, except where a
// file's own documentation says DuckDB is wrong (int96_from_spark below).
import { copyFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [moduleDir, ptDir, outArg] = process.argv.slice(2);
if (!moduleDir || !ptDir) {
  console.error('usage: node gen_parquet_testing.mjs MODULE_DIR PARQUET_TESTING_DIR [OUT_DIR]');
  process.exit(2);
}
const out = outArg || dirname(fileURLToPath(import.meta.url));
const require = createRequire(moduleDir.replace(/\/?$/, '/') + 'package.json');
const duck = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);
const db = await duck.DuckDBInstance.create(':memory:');
const con = await db.connect();
const rows = async (s) => (await con.runAndReadAll(s)).getRows();
const q = (s) => "'" + s.replaceAll("'", "''") + "'";
const ident = (s) => '"' + s.replaceAll('"', '""') + '"';
await con.run("SET TimeZone = 'UTC'");

function expr(col, type) {
  const c = ident(col);
  if (/^TIMESTAMP_NS/.test(type)) return `CAST(epoch_ns(${c}) AS VARCHAR)`;
  if (/^TIMESTAMP/.test(type)) return `CAST(epoch_us(${c}) AS VARCHAR)`;
  if (type === 'BLOB') return `hex(${c})`;
  return `CAST(${c} AS VARCHAR)`;
}

// Each file: where it is in parquet-testing, what it shows, the read
// options parquetio needs for it (columns, validity), the numpy dtype
// expected by column, and a word each warning must hold.
const files = [
  { src: 'data/column_chunk_key_value_metadata.parquet', note: 'column chunks carry key_value_metadata, one key without a value (0 rows)' },
  { src: 'data/datapage_v2_empty_datapage.snappy.parquet', note: 'a SNAPPY data page v2 of one null: no value bytes to decompress' },
  { src: 'data/page_v2_empty_compressed.parquet', note: 'a ZSTD data page v2 of 10 nulls: a ZSTD stream of 0 bytes', validity: ['integer_column'] },
  { src: 'data/single_nan.parquet', note: 'a SNAPPY file of one null double: an empty dictionary page' },
  { src: 'data/int96_from_spark.parquet', note: 'Spark 3.4.3 INT96 timestamps beyond datetime64[ns] (years 9999 and 290000)', numpy: { a: '<M8[us]' } },
  { src: 'data/unknown-logical-type.parquet', note: 'a logical type of a newer writer: read as its physical type', warnings: ['unknown logical type'] },
  { src: 'data/repeated_no_annotation.parquet', note: 'an old parquet-rs wrote a footer of 0 rows over a row group of 6', columns: ['id'], warnings: ['row groups hold 6'] },
  { src: 'bad_data/ARROW-GH-43605.parquet', note: 'dictionary indexes of bit width 0 over a dictionary of one value: all zeros' },
  { src: 'data/alltypes_tiny_pages.parquet', note: 'Impala pages of dictionary indexes of bit width 0 over a dictionary of 730 values (every index 0)', columns: ['id', 'date_string_col', 'year', 'month'] },
];

// int96_from_spark.md gives the values Spark wrote, as microseconds:
// DuckDB reads the last one as a date in 226414 BC (Spark's encoding of
// year 290000 wraps int64 microseconds, and Spark reads it back through
// the same wrap), so the file's documentation is followed for it.
const sparkInt96 = ['1704141296123456', '1704070800000000', '253402225200000000', '1735599600000000', null, '9089380393200000000'];

for (const f of files) {
  const name = 'pt_' + f.src.split('/').pop().replace(/\.parquet$/, '').replaceAll('.', '_').replaceAll('-', '_') + '.parquet';
  const file = join(out, name);
  copyFileSync(join(ptDir, f.src), file);
  const desc = await rows(`DESCRIBE SELECT * FROM read_parquet(${q(file)})`);
  const cols = [];
  for (const [col, type] of desc) {
    if (f.columns && !f.columns.includes(col)) continue;
    let vals = (await rows(`SELECT ${expr(col, type)} FROM read_parquet(${q(file)})`)).map((r) => r[0]);
    if (f.src.endsWith('int96_from_spark.parquet')) vals = sparkInt96;
    const c = { name: col, duck_type: type, nulls: vals.filter((v) => v === null).length, values: vals };
    if (f.numpy?.[col]) c.numpy = f.numpy[col];
    cols.push(c);
  }
  const n = Number((await rows(`SELECT count(*) FROM read_parquet(${q(file)})`))[0][0]);
  const createdBy = (await rows(`SELECT created_by FROM parquet_file_metadata(${q(file)})`))[0][0];
  const m = {
    file: name, producer: `${createdBy} (parquet-testing ${f.src}); values by DuckDB`, rows: n, note: f.note,
    read: { columns: f.columns ?? null, validity: f.validity ?? null }, warnings: f.warnings ?? [], columns: cols,
  };
  writeFileSync(file.replace(/\.parquet$/, '.json'), JSON.stringify(m) + '\n');
  console.log(name, n, 'rows');
}
