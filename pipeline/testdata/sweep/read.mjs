// read.mjs: reads the write sweep's Parquet outputs with DuckDB and its
// Arrow IPC outputs (file, stream, Feather) with Arrow JS, and writes
// what they read as testdata/sweep/<format>.json, in read.py's text of
// values (see there and pipeline/writesweep_test.go):
//
//   node read.mjs OUTDIR MODULE_DIR
//
// MODULE_DIR is a folder where `npm install @duckdb/node-api
// apache-arrow lz4js` was run (outside the repository; lz4js is Arrow
// JS's codec for Feather's LZ4 frames). A null (NaT) is null.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [outDir, moduleDir] = process.argv.slice(2);
const require = createRequire(moduleDir.replace(/\/?$/, '/') + 'package.json');
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);
const arrow = await import(pathToFileURL(require.resolve('apache-arrow')).href);
const lz4 = require('lz4js');
arrow.compressionRegistry.set(0 /* LZ4_FRAME */, { decode: (b) => lz4.decompress(b) });
const here = dirname(fileURLToPath(import.meta.url));

const fl = (x) => {
  if (Number.isNaN(x)) return 'nan';
  const v = new DataView(new ArrayBuffer(8));
  v.setFloat64(0, x);
  return [...new Uint8Array(v.buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
};
const hex = (u8) => 'b:' + [...u8].map((b) => b.toString(16).padStart(2, '0')).join('');
const join2 = (p, n) => (p === '' ? n : p + '.' + n);
const E18 = 10n ** 18n;

// DuckDB: a value of a type, its leaves pushed to cols.
function duckLeaf(v, t) {
  if (v === null || v === undefined) return null;
  switch (t.toString()) {
    case 'BOOLEAN': return v ? '1' : '0';
    case 'TINYINT': case 'SMALLINT': case 'INTEGER': case 'BIGINT': case 'HUGEINT':
    case 'UTINYINT': case 'USMALLINT': case 'UINTEGER': case 'UBIGINT': return String(v);
    case 'FLOAT': case 'DOUBLE': return fl(v);
    case 'VARCHAR': return v;
    case 'BLOB': return hex(v.bytes);
    case 'TIMESTAMP': return String(v.micros * 10n ** 12n);
    case 'TIMESTAMP_MS': return String(v.millis * 10n ** 15n);
    case 'TIMESTAMP_NS': return String(v.nanos * 10n ** 9n);
    case 'TIMESTAMP_S': return String(v.seconds * E18);
    case 'DATE': return String(BigInt(v.days) * 86400n * E18);
    default: return '?' + t.toString() + ':' + String(v);
  }
}
function duckWalk(cols, types, path, v, t) {
  const k = t.constructor.name;
  if (k === 'DuckDBStructType') {
    t.entryNames.forEach((n, i) => duckWalk(cols, types, join2(path, n), v === null ? null : v.entries[n], t.entryTypes[i]));
    return;
  }
  if (k === 'DuckDBListType' || k === 'DuckDBArrayType') {
    for (const item of v === null ? [] : v.items) duckWalk(cols, types, path, item, t.valueType);
    return;
  }
  types[path] = t.toString();
  (cols[path] ??= []).push(duckLeaf(v, t));
}
function duckEmpty(cols, types, path, t) {
  const k = t.constructor.name;
  if (k === 'DuckDBStructType') t.entryNames.forEach((n, i) => duckEmpty(cols, types, join2(path, n), t.entryTypes[i]));
  else if (k === 'DuckDBListType' || k === 'DuckDBArrayType') duckEmpty(cols, types, path, t.valueType);
  else { cols[path] ??= []; types[path] = t.toString(); }
}
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
async function readParquet(file) {
  const r = await con.runAndReadAll(`SELECT * FROM read_parquet('${file.replaceAll("'", "''")}')`);
  const names = r.columnNames(), ts = r.columnTypes(), rows = r.getRows();
  const cols = {}, types = {};
  names.forEach((n, c) => {
    const p = names.length === 1 ? '' : n;
    duckEmpty(cols, types, p, ts[c]);
    for (const row of rows) duckWalk(cols, types, p, row[c], ts[c]);
  });
  return [cols, types];
}

// Arrow JS: the raw value at row i of a vector (its chunks).
function rawAt(vec, i) {
  for (const d of vec.data) {
    if (i < d.length) return [d, i];
    i -= d.length;
  }
  throw new Error('row out of range');
}
const unitAs = [E18, 10n ** 15n, 10n ** 12n, 10n ** 9n]; // SECOND, MILLISECOND, MICROSECOND, NANOSECOND
function arrowLeaf(vec, i) {
  if (!vec.isValid(i)) return null;
  const t = vec.type;
  const [d, k] = rawAt(vec, i);
  switch (t.typeId) {
    case arrow.Type.Bool: return vec.get(i) ? '1' : '0';
    case arrow.Type.Int: return String(vec.get(i));
    case arrow.Type.Float: return fl(Number(vec.get(i)));
    case arrow.Type.Utf8: case arrow.Type.LargeUtf8: return vec.get(i);
    case arrow.Type.Binary: case arrow.Type.LargeBinary: case arrow.Type.FixedSizeBinary: return hex(vec.get(i));
    case arrow.Type.Timestamp: case arrow.Type.Duration:
      return String(BigInt(d.values[d.offset + k]) * unitAs[t.unit]);
    case arrow.Type.Date:
      if (t.unit === arrow.DateUnit.DAY) return String(BigInt(d.values[d.offset + k]) * 86400n * E18);
      return String(BigInt(d.values[d.offset + k]) * 10n ** 15n);
    default: return '?' + String(t) + ':' + String(vec.get(i));
  }
}
function arrowWalk(cols, types, path, vec, rows) {
  const t = vec.type;
  if (t.typeId === arrow.Type.Struct) {
    t.children.forEach((f, c) => arrowWalk(cols, types, join2(path, f.name), vec.getChildAt(c), rows));
    return;
  }
  if (t.typeId === arrow.Type.FixedSizeList) {
    const n = t.listSize, sub = [];
    for (const i of rows) for (let j = 0; j < n; j++) sub.push(i * n + j);
    arrowWalk(cols, types, path, vec.getChildAt(0), sub);
    return;
  }
  if (t.typeId === arrow.Type.List) {
    cols[path] ??= [];
    for (const i of rows) {
      const l = vec.get(i);
      if (l !== null) arrowWalk(cols, types, path, l, [...Array(l.length).keys()]);
    }
    return;
  }
  types[path] = String(t);
  cols[path] ??= [];
  for (const i of rows) cols[path].push(arrowLeaf(vec, i));
}
function arrowEmpty(cols, types, path, t) {
  if (t.typeId === arrow.Type.Struct) t.children.forEach((f) => arrowEmpty(cols, types, join2(path, f.name), f.type));
  else if (t.typeId === arrow.Type.FixedSizeList || t.typeId === arrow.Type.List) arrowEmpty(cols, types, path, t.children[0].type);
  else { cols[path] = []; types[path] = String(t); }
}
function readArrow(file) {
  const table = arrow.tableFromIPC(readFileSync(file));
  const cols = {}, types = {};
  const fields = table.schema.fields;
  fields.forEach((f, c) => {
    // (a table of no rows from the schema: Arrow JS 21 fails on its
    // struct columns' vectors)
    if (table.numRows === 0) return arrowEmpty(cols, types, fields.length === 1 ? '' : f.name, f.type);
    arrowWalk(cols, types, fields.length === 1 ? '' : f.name, table.getChildAt(c), [...Array(table.numRows).keys()]);
  });
  return [cols, types];
}

const readers = { parquet: readParquet, arrow: readArrow, arrows: readArrow, feather: readArrow };
const outputs = JSON.parse(readFileSync(join(outDir, 'outputs.json'), 'utf8'));
const readings = {};
for (const o of outputs) {
  if (!(o.format in readers)) continue;
  const r = { sha: o.sha ?? '' };
  if (o.refused) r.refused = o.refused;
  else {
    try {
      [r.cols, r.types] = await readers[o.format](o.file);
    } catch (e) {
      r.error = String(e.message ?? e);
    }
  }
  (readings[o.format] ??= {})[o.stem] = r;
}
// keys sorted, as read.py writes them
const sorted = (v) => (v && typeof v === 'object' && !Array.isArray(v)
  ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v);
for (const [fmt, rs] of Object.entries(readings)) {
  writeFileSync(join(here, fmt + '.json'), JSON.stringify(sorted(rs)) + '\n');
}
