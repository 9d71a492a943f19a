// Reads an Arrow IPC file or stream with Apache Arrow JS (an independent
// implementation) and prints its schema and values as JSON, for
// arrowconv's TestArrowJS. Usage: ARROWJS_DIR=/tmp/arrowjs node read_arrow.mjs FILE
// The packages live outside the repository:
//   mkdir /tmp/arrowjs && cd /tmp/arrowjs && npm init -y && npm install apache-arrow fzstd lz4js
// fzstd and lz4js decode compressed IPC buffers (Arrow JS ships no codecs).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const dir = process.env.ARROWJS_DIR || "/tmp/arrowjs";
const require = createRequire(path.join(dir, "package.json"));
const { tableFromIPC, compressionRegistry, CompressionType } = require("apache-arrow");
try {
  const fzstd = require("fzstd");
  compressionRegistry.set(CompressionType.ZSTD, { decode: (b) => fzstd.decompress(b) });
} catch {}
try {
  const lz4 = require("lz4js");
  compressionRegistry.set(CompressionType.LZ4_FRAME, { decode: (b) => Uint8Array.from(lz4.decompress(b)) });
} catch {}

// plain turns a value into JSON-friendly data: BigInts and numbers become
// strings (exact, NaN and infinities included), vectors and structs lists.
function plain(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Object.is(v, -0) ? "-0.0" : String(v);
  if (typeof v === "boolean" || typeof v === "string") return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString("hex");
  if (typeof v.toArray === "function" && typeof v.length === "number") return Array.from({ length: v.length }, (_, i) => plain(v.get(i)));
  if (typeof v.toJSON === "function") { const o = v.toJSON(); return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, plain(x)])); }
  return String(v);
}

const table = tableFromIPC(readFileSync(process.argv[2]));
const out = {
  numRows: table.numRows,
  schemaMetadata: Object.fromEntries(table.schema.metadata),
  columns: table.schema.fields.map((f, i) => {
    const col = table.getChildAt(i);
    const values = [];
    for (let r = 0; r < table.numRows; r++) values.push(plain(col.get(r)));
    return { name: f.name, type: String(f.type), metadata: Object.fromEntries(f.metadata), values };
  }),
};
process.stdout.write(JSON.stringify(out));
