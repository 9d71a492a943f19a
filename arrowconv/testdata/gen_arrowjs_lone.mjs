// Writes one-column Arrow IPC files with Apache Arrow JS, each column of
// a type that maps to a numpy record (a struct, an interval, a
// fixed-size list of structs), and next to each a JSON file of the values
// Arrow JS reads back from its own bytes, for arrowconv's
// TestForeignLoneRecord (issue 30: such a column alone keeps its name).
//
//   mkdir -p /tmp/npm-ipcname && cd /tmp/npm-ipcname &&
//     npm init -y && npm install apache-arrow@21.2.0
//   cd arrowconv/testdata && ARROWJS_DIR=/tmp/npm-ipcname node gen_arrowjs_lone.mjs
import { writeFileSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const dir = process.env.ARROWJS_DIR || "/tmp/npm-ipcname";
const require = createRequire(path.join(dir, "package.json"));
const A = require("apache-arrow");
const version = JSON.parse(readFileSync(path.join(dir, "node_modules/apache-arrow/package.json"), "utf8")).version;
const out = "foreign";
mkdirSync(out, { recursive: true });

// raw returns value i of vec as the JSON expectation (the conventions of
// gen_arrowjs.mjs: integers and floats as strings, an interval as the
// list of its parts).
function raw(vec, i) {
  if (!vec.isValid(i)) return null;
  const t = vec.type;
  switch (t.typeId) {
    case A.Type.Int:
    case A.Type.Float:
      return String(vec.get(i));
    case A.Type.Interval: {
      const d = vec.data[0];
      if (t.unit === A.IntervalUnit.YEAR_MONTH) return [String(d.values[d.offset + i])];
      return [String(d.values[(d.offset + i) * 2]), String(d.values[(d.offset + i) * 2 + 1])];
    }
    case A.Type.Struct: {
      const o = {};
      t.children.forEach((c, j) => { o[c.name] = raw(vec.getChildAt(j), i); });
      return o;
    }
    case A.Type.FixedSizeList: {
      const sub = vec.get(i);
      return Array.from({ length: sub.length }, (_, j) => raw(sub, j));
    }
  }
  throw new Error("no expectation for " + t);
}

function write(name, field, vec, format) {
  const schema = new A.Schema([field]);
  const batch = new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: vec.length, nullCount: 0, children: [vec.data[0]] }));
  const bytes = A.tableToIPC(new A.Table([batch]), format);
  writeFileSync(path.join(out, name), bytes);
  const back = A.tableFromIPC(bytes);
  const v = back.getChildAt(0);
  const exp = {
    producer: `apache-arrow (Arrow JS) ${version}`,
    format,
    compression: "",
    batches: back.batches.length,
    columns: [{ name: back.schema.fields[0].name, type: String(back.schema.fields[0].type), values: Array.from({ length: v.length }, (_, i) => raw(v, i)) }],
  };
  writeFileSync(path.join(out, name + ".json"), JSON.stringify(exp, null, 1) + "\n");
}

const pt = new A.Struct([new A.Field("x", new A.Int32(), false), new A.Field("y", new A.Float64(), false)]);
const pts = [{ x: 1, y: 0.5 }, { x: -2, y: 1.25 }, { x: 2147483647, y: -3 }];
const stf = new A.Field("pt", pt, false);
write("arrowjs_lone_struct.arrow", stf, A.vectorFromArray(pts, pt), "file");
write("arrowjs_lone_struct.arrows", stf, A.vectorFromArray(pts, pt), "stream");

const dt = new A.IntervalDayTime();
write("arrowjs_lone_interval.arrow", new A.Field("span", dt, false),
  A.makeVector(A.makeData({ type: dt, length: 3, nullCount: 0, data: Int32Array.from([1, 500, -2, 86399999, 0, -1]) })), "file");

const pair = new A.Struct([new A.Field("a", new A.Int16(), false), new A.Field("b", new A.Int16(), false)]);
const fsl = new A.FixedSizeList(2, new A.Field("item", pair, false));
write("arrowjs_lone_fsl_struct.arrow", new A.Field("pairs", fsl, false),
  A.vectorFromArray([[{ a: 1, b: 2 }, { a: 3, b: 4 }], [{ a: -1, b: -2 }, { a: 32767, b: -32768 }]], fsl), "file");
