// Writes Arrow IPC files with Apache Arrow JS (an independent Arrow
// implementation) and, next to each, a JSON file of the values Arrow JS
// reads back from what it wrote, for arrowconv's TestForeignArrowJS.
//
//   mkdir -p /work/scratch/node-arrow && cd /work/scratch/node-arrow &&
//     npm init -y && npm install apache-arrow
//   cd arrowconv/testdata && ARROWJS_DIR=/work/scratch/node-arrow node gen_arrowjs.mjs
import { writeFileSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const dir = process.env.ARROWJS_DIR || "/work/scratch/node-arrow";
const require = createRequire(path.join(dir, "package.json"));
const A = require("apache-arrow");
const version = JSON.parse(readFileSync(path.join(dir, "node_modules/apache-arrow/package.json"), "utf8")).version;
const out = "foreign";
mkdirSync(out, { recursive: true });

const f = (name, type, nullable = true) => new A.Field(name, type, nullable);

// decimalData builds a Decimal(128) vector from unscaled BigInts.
function decimalVector(type, unscaled) {
  const words = new Uint32Array(unscaled.length * 4);
  const valid = new Uint8Array(Math.ceil(unscaled.length / 8));
  unscaled.forEach((v, i) => {
    if (v === null) return;
    valid[i >> 3] |= 1 << (i & 7);
    let x = BigInt.asUintN(128, v);
    for (let k = 0; k < 4; k++) {
      words[i * 4 + k] = Number(x & 0xffffffffn);
      x >>= 32n;
    }
  });
  const nullCount = unscaled.filter((v) => v === null).length;
  return A.makeVector(A.makeData({ type, length: unscaled.length, nullCount, nullBitmap: valid, data: words }));
}

// fixed makes a vector of a fixed-width type from raw typed-array values.
function fixedVector(type, values, validity) {
  const n = validity ? validity.length : values.length / (type.stride || 1);
  let nullBitmap, nullCount = 0;
  if (validity) {
    nullBitmap = new Uint8Array(Math.ceil(n / 8));
    validity.forEach((ok, i) => { if (ok) nullBitmap[i >> 3] |= 1 << (i & 7); else nullCount++; });
  }
  return A.makeVector(A.makeData({ type, length: n, nullCount, nullBitmap, data: values }));
}

function columns() {
  const ts = (unit, tz) => new A.Timestamp(unit, tz);
  const cols = [];
  const add = (name, type, vec) => cols.push([f(name, type), vec]);
  const v = (type, values) => A.vectorFromArray(values, type);
  add("i8", new A.Int8(), v(new A.Int8(), [-128, 0, 127, 5]));
  add("i16", new A.Int16(), v(new A.Int16(), [-32768, 1, 32767, -5]));
  add("i32", new A.Int32(), v(new A.Int32(), [-2147483648, 2, 2147483647, 7]));
  add("i64", new A.Int64(), v(new A.Int64(), [-9223372036854775808n, 3n, 9223372036854775807n, 9007199254740993n]));
  add("u8", new A.Uint8(), v(new A.Uint8(), [0, 1, 255, 128]));
  add("u16", new A.Uint16(), v(new A.Uint16(), [0, 1, 65535, 4096]));
  add("u32", new A.Uint32(), v(new A.Uint32(), [0, 1, 4294967295, 65536]));
  add("u64", new A.Uint64(), v(new A.Uint64(), [0n, 1n, 18446744073709551615n, 4294967296n]));
  add("f16", new A.Float16(), v(new A.Float16(), [1.5, null, -0.0001, 65504]));
  add("f32", new A.Float32(), v(new A.Float32(), [1.5, null, 3.4028234663852886e38, 0.1]));
  add("f64", new A.Float64(), v(new A.Float64(), [0.1, null, -1.7976931348623157e308, 5e-324]));
  add("b", new A.Bool(), v(new A.Bool(), [true, false, true, false]));
  add("s", new A.Utf8(), v(new A.Utf8(), ["a", "héllo", "", "日本語テキスト"]));
  add("ls", new A.LargeUtf8(), v(new A.LargeUtf8(), ["x", "yy", "zzz", "🙂"]));
  const bytes = (...xs) => Uint8Array.from(xs);
  add("bin", new A.Binary(), v(new A.Binary(), [bytes(0, 1, 2), bytes(), bytes(255), bytes(1)]));
  add("lbin", new A.LargeBinary(), v(new A.LargeBinary(), [bytes(0, 1, 2), bytes(), bytes(255), bytes(1)]));
  add("fsb", new A.FixedSizeBinary(3), v(new A.FixedSizeBinary(3), [bytes(0, 1, 2), bytes(0, 0, 0), bytes(255, 255, 255), bytes(1, 2, 3)]));
  const d1 = new A.Decimal(2, 9, 128);
  add("dec", d1, decimalVector(d1, [33n, null, -999999999n, 1n]));
  const d2 = new A.Decimal(10, 38, 128);
  add("dec38", d2, decimalVector(d2, [1000000000n, 12345678901234567890123456780123456789n, -1n, 90071992547409930000000000n]));
  add("date_day", new A.DateDay(), fixedVector(new A.DateDay(), Int32Array.from([0, 0, -719162, 2932896]), [true, false, true, true]));
  add("date_ms", new A.DateMillisecond(), fixedVector(new A.DateMillisecond(), BigInt64Array.from([0n, 86400000n, -86400000n, 1700000000000n])));
  add("ts_s", ts(A.TimeUnit.SECOND), fixedVector(ts(A.TimeUnit.SECOND), BigInt64Array.from([0n, 0n, -1n, 1700000000n]), [true, false, true, true]));
  add("ts_ms_utc", ts(A.TimeUnit.MILLISECOND, "UTC"), fixedVector(ts(A.TimeUnit.MILLISECOND, "UTC"), BigInt64Array.from([0n, 1n, -1n, 1700000000123n])));
  add("ts_us_tz", ts(A.TimeUnit.MICROSECOND, "Europe/Paris"), fixedVector(ts(A.TimeUnit.MICROSECOND, "Europe/Paris"), BigInt64Array.from([0n, 1n, -1n, 1700000000123456n])));
  add("ts_ns", ts(A.TimeUnit.NANOSECOND), fixedVector(ts(A.TimeUnit.NANOSECOND), BigInt64Array.from([0n, 1n, -1n, 1700000000123456789n])));
  add("t_s", new A.TimeSecond(), fixedVector(new A.TimeSecond(), Int32Array.from([0, 1, 86399, 3600])));
  add("t_ms", new A.TimeMillisecond(), fixedVector(new A.TimeMillisecond(), Int32Array.from([0, 1, 86399999, 3600000])));
  add("t_us", new A.TimeMicrosecond(), fixedVector(new A.TimeMicrosecond(), BigInt64Array.from([0n, 1n, 86399999999n, 3600000000n])));
  add("t_ns", new A.TimeNanosecond(), fixedVector(new A.TimeNanosecond(), BigInt64Array.from([0n, 1n, 86399999999999n, 3600000000000n])));
  add("dur_ms", new A.DurationMillisecond(), fixedVector(new A.DurationMillisecond(), BigInt64Array.from([0n, 0n, -5n, 86400000n]), [true, false, true, true]));
  add("dur_us", new A.DurationMicrosecond(), fixedVector(new A.DurationMicrosecond(), BigInt64Array.from([0n, 1n, -1n, 123456789n])));
  add("iv_ym", new A.IntervalYearMonth(), fixedVector(new A.IntervalYearMonth(), Int32Array.from([1, -2, 0, 120])));
  add("iv_dt", new A.IntervalDayTime(), fixedVector(new A.IntervalDayTime(), Int32Array.from([1, 2, -3, 0, 0, 86399999, 7, 7])));
  const st = new A.Struct([f("x", new A.Int32(), false), f("y", new A.Float64()), f("name", new A.Utf8(), false)]);
  add("st", st, v(st, [{ x: 1, y: 0.5, name: "ab" }, { x: 2, y: null, name: "" }, { x: 3, y: -1, name: "abcd" }, { x: 4, y: 2, name: "z" }]));
  const fsl = new A.FixedSizeList(3, f("item", new A.Float32()));
  add("fsl", fsl, v(fsl, [[1, 2, 3], [4, null, 6], [7, 8, 9], [0, 0, 0]]));
  const list = new A.List(f("item", new A.Int64()));
  add("list", list, v(list, [[1n, 2n], [3n, 4n], [5n, 6n], [7n, 8n]]));
  const dict = new A.Dictionary(new A.Utf8(), new A.Int32());
  add("dict", dict, v(dict, ["red", "green", "red", "blue-ish"]));
  return cols;
}

// raw returns value i of vector vec as the JSON expectation.
function raw(vec, i) {
  if (!vec.isValid(i)) return null;
  const t = vec.type;
  const chunkOf = () => {
    let k = i;
    for (const d of vec.data) {
      if (k < d.length) return [d, k];
      k -= d.length;
    }
    throw new Error("index out of range");
  };
  switch (t.typeId) {
    case A.Type.Int:
      return String(vec.get(i));
    case A.Type.Float: {
      if (t.precision === A.Precision.HALF) {
        const [d, k] = chunkOf();
        return { f16bits: d.values[d.offset + k] };
      }
      return String(vec.get(i));
    }
    case A.Type.Bool:
      return vec.get(i);
    case A.Type.Utf8:
    case A.Type.LargeUtf8:
      return vec.get(i);
    case A.Type.Binary:
    case A.Type.LargeBinary:
    case A.Type.FixedSizeBinary:
      return { hex: Buffer.from(vec.get(i)).toString("hex") };
    case A.Type.Decimal: {
      const [d, k] = chunkOf();
      let x = 0n;
      for (let w = 3; w >= 0; w--) x = (x << 32n) | BigInt(d.values[(d.offset + k) * 4 + w]);
      x = BigInt.asIntN(128, x);
      const neg = x < 0n;
      let s = (neg ? -x : x).toString().padStart(t.scale + 1, "0");
      if (t.scale > 0) s = s.slice(0, s.length - t.scale) + "." + s.slice(s.length - t.scale);
      return { decimal: (neg ? "-" : "") + s };
    }
    case A.Type.Date:
    case A.Type.Timestamp:
    case A.Type.Time:
    case A.Type.Duration: {
      const [d, k] = chunkOf();
      return String(d.values[d.offset + k]);
    }
    case A.Type.Interval: {
      const [d, k] = chunkOf();
      if (t.unit === A.IntervalUnit.YEAR_MONTH) return [String(d.values[d.offset + k])];
      return [String(d.values[(d.offset + k) * 2]), String(d.values[(d.offset + k) * 2 + 1])];
    }
    case A.Type.Struct: {
      const o = {};
      t.children.forEach((c, j) => { o[c.name] = raw(vec.getChildAt(j), i); });
      return o;
    }
    case A.Type.FixedSizeList:
    case A.Type.List: {
      const sub = vec.get(i);
      return Array.from({ length: sub.length }, (_, j) => raw(sub, j));
    }
    case A.Type.Dictionary:
      return vec.get(i);
  }
  throw new Error("no expectation for " + t);
}

function write(name, table, format) {
  const bytes = A.tableToIPC(table, format);
  writeFileSync(path.join(out, name), bytes);
  // The expectation is what Arrow JS reads back from its own bytes.
  const back = A.tableFromIPC(bytes);
  const exp = {
    producer: `apache-arrow (Arrow JS) ${version}`,
    format,
    compression: "",
    batches: back.batches.length,
    columns: back.schema.fields.map((fd, j) => {
      const vec = back.getChildAt(j);
      return { name: fd.name, type: String(fd.type), values: Array.from({ length: vec.length }, (_, i) => raw(vec, i)) };
    }),
  };
  writeFileSync(path.join(out, name + ".json"), JSON.stringify(exp, null, 1) + "\n");
}

const cols = columns();
const schema = new A.Schema(cols.map(([fd]) => fd));
const batch = (lo, hi) => new A.RecordBatch(schema, A.makeData({
  type: new A.Struct(schema.fields), length: hi - lo, nullCount: 0,
  children: cols.map(([, vec]) => vec.slice(lo, hi).data[0]),
}));
const table = new A.Table([batch(0, 3), batch(3, 4)]);
write("arrowjs_every_type.arrow", table, "file");
write("arrowjs_every_type.arrows", table, "stream");
write("arrowjs_zero_batches.arrows", new A.Table(schema), "stream");

// Nulls in nested columns (issue 16's validity fields): a struct whose
// rows, nested struct and fields are null in different rows, a
// fixed_size_list and a list of one length with null rows; two batches.
function nestedColumns() {
  const inner = new A.Struct([f("x", new A.Float64()), f("y", new A.Bool())]);
  const st = new A.Struct([f("a", new A.Int32()), f("b", inner), f("s", new A.Utf8())]);
  const fsl = new A.FixedSizeList(3, f("item", new A.Int16()));
  const l2 = new A.List(f("item", new A.Float64()));
  const n = 12;
  const stVals = [], fslVals = [], l2Vals = [], kVals = [];
  for (let i = 0; i < n; i++) {
    kVals.push(i);
    stVals.push(i % 5 === 2 ? null : {
      a: i % 3 === 1 ? null : i * 2,
      b: i % 7 === 3 ? null : { x: i % 4 === 0 ? null : i / 4, y: i % 2 === 0 },
      s: i % 6 === 5 ? null : "v" + i,
    });
    fslVals.push(i % 4 === 1 ? null : [i, i + 1, -i]);
    l2Vals.push(i % 3 === 0 ? null : [i * 0.5, -i * 0.5]);
  }
  return [
    [f("k", new A.Int32(), false), A.vectorFromArray(kVals, new A.Int32())],
    [f("st", st), A.vectorFromArray(stVals, st)],
    [f("fsl", fsl), A.vectorFromArray(fslVals, fsl)],
    [f("l2", l2), A.vectorFromArray(l2Vals, l2)],
  ];
}
const ncols = nestedColumns();
const nschema = new A.Schema(ncols.map(([fd]) => fd));
const nbatch = (lo, hi) => new A.RecordBatch(nschema, A.makeData({
  type: new A.Struct(nschema.fields), length: hi - lo, nullCount: 0,
  children: ncols.map(([, vec]) => vec.slice(lo, hi).data[0]),
}));
const ntable = new A.Table([nbatch(0, 7), nbatch(7, 12)]);
write("arrowjs_nested_nulls.arrow", ntable, "file");
write("arrowjs_nested_nulls.arrows", ntable, "stream");

// A dictionary shared by two columns (one dictionary id, one dictionary
// batch).
{
  const dtype = new A.Dictionary(new A.Utf8(), new A.Int8(), 7);
  const dict = A.vectorFromArray(["north", "south", "east", "west"], new A.Utf8());
  const idx = (xs) => {
    const valid = xs.map((x) => x !== null);
    const bm = new Uint8Array(Math.ceil(xs.length / 8));
    valid.forEach((ok, i) => { if (ok) bm[i >> 3] |= 1 << (i & 7); });
    return A.makeVector(A.makeData({ type: dtype, length: xs.length, nullCount: valid.filter((v) => !v).length, nullBitmap: bm,
      data: Int8Array.from(xs.map((x) => x ?? 0)), dictionary: dict }));
  };
  const from = idx([0, 1, 2, 3, 0, 1]);
  const to = idx([3, 2, 1, 0, 3, 2]);
  const sschema = new A.Schema([f("from", dtype, false), f("to", dtype, false)]);
  const sb = new A.RecordBatch(sschema, A.makeData({ type: new A.Struct(sschema.fields), length: 6, nullCount: 0, children: [from.data[0], to.data[0]] }));
  write("arrowjs_shared_dict.arrow", new A.Table([sb]), "file");
  write("arrowjs_shared_dict.arrows", new A.Table([sb]), "stream");
}
