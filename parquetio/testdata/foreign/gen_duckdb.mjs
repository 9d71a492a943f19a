// gen_duckdb.mjs: writes the DuckDB part of parquetio's foreign-file corpus
// and, next to each file X.parquet, X.json: the values as DuckDB itself
// reads them back.
//
//   cd /some/scratch && npm install @duckdb/node-api
//   node gen_duckdb.mjs MODULE_DIR [OUT_DIR]
//
// MODULE_DIR is the folder where @duckdb/node-api was installed; OUT_DIR
// defaults to this script's folder. Every value in the JSON is computed
// by DuckDB from the written file (read_parquet), never by npyflow: integers
// and decimals as DuckDB's VARCHAR cast prints them (exact), floats as
// their VARCHAR cast (shortest round-trip), timestamps as epoch units,
// dates as days since 1970-01-01, times as units since midnight, UUIDs as
// text, BLOBs as hex; NULL is null.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [moduleDir, outArg] = process.argv.slice(2);
if (!moduleDir) {
  console.error('usage: node gen_duckdb.mjs MODULE_DIR [OUT_DIR]');
  process.exit(2);
}
const out = outArg || dirname(fileURLToPath(import.meta.url));
const require = createRequire(moduleDir.replace(/\/?$/, '/') + 'package.json');
const duck = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);
const db = await duck.DuckDBInstance.create(':memory:');
const con = await db.connect();
const run = (s) => con.run(s);
const rows = async (s) => (await con.runAndReadAll(s)).getRows();
const q = (s) => "'" + s.replaceAll("'", "''") + "'";
const ident = (s) => '"' + s.replaceAll('"', '""') + '"';

await run("SET TimeZone = 'UTC'");
await run("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy', 'ecstatic')");

// How DuckDB's reading of a column is written to the JSON, by DuckDB type.
function expr(col, type) {
  const c = ident(col);
  if (/^TIMESTAMP_NS/.test(type)) return `CAST(epoch_ns(${c}) AS VARCHAR)`;
  if (/^TIMESTAMP_MS/.test(type)) return `CAST(epoch_ms(${c}) AS VARCHAR)`;
  if (/^TIMESTAMP_S/.test(type)) return `CAST(epoch_ms(${c}) AS VARCHAR)`;
  if (/^TIMESTAMP/.test(type)) return `CAST(epoch_us(${c}) AS VARCHAR)`;
  if (type === 'DATE') return `CAST(date_diff('day', DATE '1970-01-01', ${c}) AS VARCHAR)`;
  if (type === 'TIME') return `CAST(epoch_us(DATE '1970-01-01' + ${c}) AS VARCHAR)`;
  if (type === 'BLOB') return `hex(${c})`;
  if (type === 'INTERVAL') return `CAST(to_months(0) + ${c} AS VARCHAR)`;
  if (/^STRUCT|\[\d*\]$|^MAP/.test(type)) return `CAST(to_json(${c}) AS VARCHAR)`;
  return `CAST(${c} AS VARCHAR)`;
}

const manifest = [];
async function emit(name, select, opts = "FORMAT parquet", note = "") {
  const file = join(out, name);
  await run(`COPY (${select}) TO ${q(file)} (${opts})`);
  const desc = await rows(`DESCRIBE SELECT * FROM read_parquet(${q(file)})`);
  const cols = [];
  for (const [col, type] of desc) {
    const vals = (await rows(`SELECT ${expr(col, type)} FROM read_parquet(${q(file)})`)).map((r) => r[0]);
    const nulls = vals.filter((v) => v === null).length;
    cols.push({ name: col, duck_type: type, nulls, values: vals });
  }
  const meta = await rows(`SELECT row_group_id, path_in_schema, type, compression, encodings, stats_null_count FROM parquet_metadata(${q(file)}) ORDER BY row_group_id, column_id`);
  const groups = new Set(meta.map((m) => Number(m[0]))).size;
  const n = Number((await rows(`SELECT count(*) FROM read_parquet(${q(file)})`))[0][0]);
  manifest.push({
    file: name, rows: n, row_groups: groups, options: opts, note,
    chunks: meta.map((m) => ({ row_group: Number(m[0]), path: m[1], physical: m[2], compression: m[3], encodings: m[4], null_count: m[5] === null ? null : Number(m[5]) })).filter((m) => m.row_group === 0),
    columns: cols,
  });
}

// Every scalar type of issue 16's table, no nulls, 3 row groups.
await emit('duck_types.parquet', `
  SELECT
    (i % 200 - 100)::TINYINT AS i1,
    (i * 7 - 30000)::SMALLINT AS i2,
    (i * 100003 - 2000000000)::INTEGER AS i4,
    (i * 1000000007 - 9000000000000000000)::BIGINT AS i8,
    (i % 5)::UTINYINT AS u1,
    ((i * 31) % 65536)::USMALLINT AS u2,
    ((i * 1234567 + 4000000000) % 4294967296)::UINTEGER AS u4,
    (18446744073709551615::UBIGINT - i::UBIGINT * 1000000000007)::UBIGINT AS u8,
    (i / 7.0 - 100)::FLOAT AS f4,
    (i / 3.0 - 1000.5)::DOUBLE AS f8,
    (i % 3 = 0) AS b,
    ((i * 37 - 5000) / 100)::DECIMAL(10,2) AS dec10_2,
    ((i % 1000) / 10)::DECIMAL(4,1) AS dec4_1,
    (CASE WHEN i % 2 = 0 THEN i::HUGEINT * 9876543210987654 - 12345678901234567890 ELSE i - 1250 END + 0.3)::DECIMAL(21,1) AS dec21_1,
    (i * 1.0000000001 - 7.25)::DECIMAL(38,10) AS dec38_10,
    ((i * 0.0031415926535897931) % 9.99)::DECIMAL(18,17) AS dec18_17,
    TIMESTAMP '2024-02-29 12:34:56.789012' + to_microseconds(i * 3600000037) AS ts,
    (TIMESTAMP '1969-12-31 23:59:59' + to_milliseconds(i * 1001))::TIMESTAMP_MS AS ts_ms,
    (TIMESTAMP '2000-01-01' + to_microseconds(i * 123456789))::TIMESTAMP_NS AS ts_ns,
    (TIMESTAMP '2010-06-15 00:00:00' + to_seconds(i * 61))::TIMESTAMP_S AS ts_s,
    (TIMESTAMPTZ '2021-03-04 05:06:07.5+00' + to_microseconds(i * 999999))::TIMESTAMPTZ AS tstz,
    (DATE '1960-01-01' + (i * 11)::INTEGER) AS d,
    (TIME '00:00:00' + to_microseconds((i * 86399999937) % 86400000000)) AS t,
    (CASE WHEN i % 4 = 0 THEN 'sad' WHEN i % 4 = 1 THEN 'ok' WHEN i % 4 = 2 THEN 'happy' ELSE 'ecstatic' END)::mood AS e,
    ('s' || (i * i % 9973)::VARCHAR || CASE WHEN i % 5 = 0 THEN ' ünï ☃' ELSE '' END) AS s,
    ('{"k": ' || i::VARCHAR || '}')::JSON AS j,
    (('\\x' || lpad(to_hex(i % 256), 2, '0'))::BLOB || CASE WHEN i % 3 = 0 THEN '\\x00\\xff'::BLOB ELSE ''::BLOB END) AS bl
  FROM range(400) t(i)`, "FORMAT parquet", "every scalar type");

// UUID and HUGEINT on their own (UUID is FIXED_LEN_BYTE_ARRAY(16), HUGEINT
// becomes DOUBLE).
await emit('duck_uuid.parquet', `
  SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(i * 7919), 12, '0'))::UUID AS id,
         (i::HUGEINT * 170141183460469231731687303715884105 // 1000)::HUGEINT AS h
  FROM range(300) t(i)`, "FORMAT parquet", "UUID and HUGEINT");

// Nulls: pages of 1000 values whose definition levels and dictionary
// indexes DuckDB writes as padded bit-packed runs (issue 16's false
// "corrupt" claims). Floats and times read nulls as NaN and NaT.
await emit('duck_nulls.parquet', `
  SELECT
    CASE WHEN i % 7 = 3 THEN NULL ELSE i * 0.5 END::DOUBLE AS f8n,
    CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 0.25)::FLOAT END AS f4n,
    CASE WHEN i % 13 = 5 THEN NULL ELSE TIMESTAMP '2020-01-01' + to_seconds(i) END AS tsn,
    CASE WHEN i % 17 = 1 THEN NULL ELSE DATE '2000-01-01' + i::INTEGER END AS dn,
    CASE WHEN i % 9 = 4 THEN NULL ELSE ((i * 13) / 100)::DECIMAL(10,2) END AS decn,
    i::BIGINT AS i8,
    (i % 3)::UTINYINT AS u1_dict,
    (CASE WHEN i % 3 = 0 THEN 'sad' WHEN i % 3 = 1 THEN 'ok' ELSE 'happy' END)::mood AS e_dict,
    CASE WHEN i < 0 THEN NULL ELSE i * 2 END::INTEGER AS i4_optional_no_nulls
  FROM range(1100) t(i)`, "FORMAT parquet", "nullable float/time/decimal columns with nulls, dictionary-encoded ENUM and UTINYINT, an OPTIONAL column without nulls");

// Integer, bool, string and enum columns that hold nulls: refused by
// default, with the null count from the statistics.
await emit('duck_int_nulls.parquet', `
  SELECT
    CASE WHEN i % 10 = 0 THEN NULL ELSE i END::INTEGER AS i4n,
    CASE WHEN i % 4 = 1 THEN NULL ELSE i % 2 = 0 END AS bn,
    CASE WHEN i % 5 = 2 THEN NULL ELSE 'v' || i::VARCHAR END AS sn,
    CASE WHEN i % 6 = 2 THEN NULL ELSE (i % 3)::UTINYINT END AS u1n,
    CASE WHEN i % 8 = 2 THEN NULL ELSE (CASE WHEN i % 2 = 0 THEN 'ok' ELSE 'sad' END)::mood END AS en
  FROM range(300) t(i)`, "FORMAT parquet", "int, bool, string, UTINYINT and ENUM columns with nulls");

// INTERVAL: FIXED_LEN_BYTE_ARRAY(12) with the INTERVAL converted type.
await emit('duck_interval.parquet', `
  SELECT i AS k, to_months(i % 14) + to_days(i % 40) + to_milliseconds(i * 1234) AS iv
  FROM range(50) t(i)`, "FORMAT parquet", "INTERVAL");

// Nested: struct, list of varying length, list of fixed length, map.
await emit('duck_struct.parquet', `
  SELECT i AS k, {'a': i * 2, 'b': {'x': i / 4.0, 'y': (i % 2 = 0)}} AS st
  FROM range(40) t(i)`, "FORMAT parquet", "nested struct");
await emit('duck_list.parquet', `
  SELECT i AS k, range(i % 4) AS l FROM range(40) t(i)`, "FORMAT parquet", "list of varying length");
await emit('duck_fixed_list.parquet', `
  SELECT i AS k, [i, i + 1, i + 2] AS l3, [i * 0.5, -i * 0.5]::DOUBLE[] AS l2f FROM range(40) t(i)`, "FORMAT parquet", "lists of one length");
// Nulls in nested columns (issue 16's validity fields): a struct whose
// rows, nested struct and fields are null in different rows; lists of one
// length (LIST and DuckDB's fixed-size ARRAY) whose rows are null.
await emit('duck_struct_nulls.parquet', `
  SELECT i AS k,
    CASE WHEN i % 5 = 2 THEN NULL ELSE {
      'a': CASE WHEN i % 3 = 1 THEN NULL ELSE i * 2 END,
      'b': CASE WHEN i % 7 = 3 THEN NULL ELSE {'x': CASE WHEN i % 4 = 0 THEN NULL ELSE i / 4.0 END, 'y': (i % 2 = 0)} END,
      's': CASE WHEN i % 6 = 5 THEN NULL ELSE 'v' || i::VARCHAR END} END AS st
  FROM range(40) t(i)`, "FORMAT parquet", "struct with null rows, a null nested struct and null fields");
await emit('duck_list_nulls.parquet', `
  SELECT i AS k,
    CASE WHEN i % 4 = 1 THEN NULL ELSE [i, i + 1, i + 2] END AS l3,
    CASE WHEN i % 3 = 0 THEN NULL ELSE [i * 0.5, -i * 0.5]::DOUBLE[] END AS l2f,
    (CASE WHEN i % 6 = 4 THEN NULL ELSE [i, i * 2] END)::INTEGER[2] AS a2
  FROM range(40) t(i)`, "FORMAT parquet", "lists of one length with null rows (LIST and fixed-size ARRAY)");
await emit('duck_list_item_nulls.parquet', `
  SELECT i AS k,
    CASE WHEN i % 7 = 3 THEN NULL ELSE [i, CASE WHEN i % 3 = 0 THEN NULL ELSE i + 1 END, i + 2] END AS l3,
    [CASE WHEN i % 4 = 2 THEN NULL ELSE i * 0.5 END, -i * 0.5]::DOUBLE[] AS l2f,
    (CASE WHEN i % 5 = 4 THEN NULL ELSE [CASE WHEN i % 2 = 0 THEN NULL ELSE 'v' || i::VARCHAR END, 's'] END)::VARCHAR[2] AS a2s,
    [i % 2 = 0, CASE WHEN i % 6 = 1 THEN NULL ELSE true END] AS lb
  FROM range(40) t(i)`, "FORMAT parquet", "lists of one length with null elements and null rows (LIST and fixed-size ARRAY)");
await emit('duck_map.parquet', `
  SELECT i AS k, MAP {'a': i, 'b': i * 2} AS m FROM range(20) t(i)`, "FORMAT parquet", "map");

// Every codec DuckDB writes.
for (const codec of ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4', 'lz4_raw', 'brotli']) {
  await emit(`duck_codec_${codec}.parquet`, `
    SELECT i::BIGINT AS i8, (i * 1.5)::DOUBLE AS f8, 'row ' || (i % 37)::VARCHAR AS s,
           CASE WHEN i % 5 = 0 THEN NULL ELSE i * 0.125 END::DOUBLE AS f8n
    FROM range(300) t(i)`, `FORMAT parquet, COMPRESSION ${codec}`, `codec ${codec}`);
}

// Parquet format version 2: data page v2 and DELTA encodings.
await emit('duck_v2.parquet', `
  SELECT i::BIGINT AS i8, (i * 3)::INTEGER AS i4, (i / 8.0)::DOUBLE AS f8,
         'k' || (i * 7 % 101)::VARCHAR AS s,
         CASE WHEN i % 9 = 0 THEN NULL ELSE i * 0.75 END::DOUBLE AS f8n,
         ((i * 37) / 100)::DECIMAL(10,2) AS dec
  FROM range(900) t(i)`, "FORMAT parquet, PARQUET_VERSION v2, COMPRESSION zstd", "data page v2, delta encodings");

// Several row groups (DuckDB cuts them at multiples of 2048 rows).
await emit('duck_rowgroups.parquet', `
  SELECT (i % 100)::BIGINT AS i8,
         CASE WHEN i % 10 = 0 THEN NULL ELSE (i % 50) * 0.5 END::DOUBLE AS f8n
  FROM range(4500) t(i)`, "FORMAT parquet, ROW_GROUP_SIZE 2048", "several row groups");

// Zero rows.
await emit('duck_empty.parquet', `
  SELECT i::BIGINT AS i8, i::DOUBLE AS f8, i::VARCHAR AS s FROM range(0) t(i)`, "FORMAT parquet", "zero rows");

for (const m of manifest) {
  m.producer = 'duckdb ' + duck.version();
  writeFileSync(join(out, m.file.replace(/\.parquet$/, '.json')), JSON.stringify(m) + '\n');
}
console.log(`wrote ${manifest.length} files to ${out}`);
