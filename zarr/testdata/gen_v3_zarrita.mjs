// Writes the Zarr v3 fixtures with zarrita (npm) and, for each array,
// the values zarrita reads back, into v3_expect.json.
//
//   cd /tmp/npm-zarr && npm install zarrita@0.7.5 @zarrita/storage
//   NODE_PATH=/tmp/npm-zarr/node_modules node zarr/testdata/gen_v3_zarrita.mjs OUTDIR
//
// OUTDIR defaults to zarr/testdata/v3.zarr next to this script.
import * as fs from "node:fs";
import * as path from "node:path";
const nm = process.env.NODE_PATH || "/tmp/npm-zarr/node_modules";
const zarr = await import(path.join(nm, "zarrita/dist/src/index.js"));
const FileSystemStore = (await import(path.join(nm, "@zarrita/storage/dist/src/fs.js"))).default;

const here = path.dirname(new URL(import.meta.url).pathname);
const out = process.argv[2] || path.join(here, "v3.zarr");
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const store = new FileSystemStore(out);
const root = zarr.root(store);
await zarr.create(root, { attributes: { title: "zarrita fixtures" } });

function image(h, w, c) {
  const a = new Uint8Array(h * w * c);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      for (let k = 0; k < c; k++) a[(y * w + x) * c + k] = (x * 7 + y * 13 + k * 101) & 255;
  return a;
}

const cases = [];
async function make(name, opts, data) {
  const arr = await zarr.create(root.resolve(name), opts);
  if (data) await zarr.set(arr, null, { data, shape: opts.shape, stride: strides(opts.shape) });
  cases.push(name);
}
function strides(shape) {
  const s = new Array(shape.length);
  let n = 1;
  for (let i = shape.length - 1; i >= 0; i--) { s[i] = n; n *= shape[i]; }
  return s;
}
const le = { name: "bytes", configuration: { endian: "little" } };
const be = { name: "bytes", configuration: { endian: "big" } };

// The reference image case in small: uint8 HxWx3 in chunks of (7, 4, 1),
// edge chunks overhanging, for each codec zarrita writes.
const [H, W] = [20, 15];
const img = image(H, W, 3);
const base = { shape: [H, W, 3], chunkShape: [7, 4, 1], dtype: "uint8", fillValue: 0 };
await make("image/raw", { ...base, codecs: [le] }, img);
await make("image/blosc_lz4", { ...base, codecs: [le, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 1, blocksize: 0 } }] }, img);
await make("image/blosc_zstd", { ...base, codecs: [le, { name: "blosc", configuration: { cname: "zstd", clevel: 3, shuffle: "bitshuffle", typesize: 1, blocksize: 0 } }] }, img);
await make("image/blosc_zlib", { ...base, codecs: [le, { name: "blosc", configuration: { cname: "zlib", clevel: 5, shuffle: "noshuffle", typesize: 1, blocksize: 0 } }] }, img);
await make("image/zstd", { ...base, codecs: [le, { name: "zstd", configuration: { level: 3, checksum: false } }] }, img);

// Numbers: big endian, transposed, NaN fill with missing chunks, dims.
const f = new Float64Array(6 * 5);
for (let i = 0; i < f.length; i++) f[i] = i * 0.5 - 3;
await make("float64_be_t", { shape: [6, 5], chunkShape: [4, 2], dtype: "float64", fillValue: "NaN", dimensionNames: ["y", "x"], attributes: { units: "m" },
  codecs: [{ name: "transpose", configuration: { order: [1, 0] } }, be, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } }] }, f);
const i16 = new Int16Array(7 * 3);
for (let i = 0; i < i16.length; i++) i16[i] = (i * 1237) % 65536 - 32768;
await make("int16_be", { shape: [7, 3], chunkShape: [3, 3], dtype: "int16", fillValue: -7, codecs: [be] }, i16);
// Only the first chunk is written; the rest read as the fill value.
{
  const arr = await zarr.create(root.resolve("sparse_f32"), { shape: [5, 6], chunkShape: [2, 4], dtype: "float32", fillValue: "Infinity", codecs: [le] });
  await zarr.set(arr, [zarr.slice(0, 2), zarr.slice(0, 4)], { data: new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]), shape: [2, 4], stride: [4, 1] });
  cases.push("sparse_f32");
}
const u64 = new BigUint64Array(9);
for (let i = 0; i < 9; i++) u64[i] = (1n << 63n) + BigInt(i * 1000003);
await make("uint64", { shape: [9], chunkShape: [4], dtype: "uint64", fillValue: 0, codecs: [le, { name: "zstd", configuration: { level: 1, checksum: false } }] }, u64);
const b = new zarr.BoolArray(new Uint8Array([1, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1]).buffer);
await make("bool", { shape: [11], chunkShape: [5], dtype: "bool", fillValue: false, codecs: [le] }, b);
await make("dotsep_i8", { shape: [4, 4], chunkShape: [3, 3], dtype: "int8", fillValue: 0, chunkSeparator: ".", codecs: [le] }, new Int8Array([...Array(16).keys()].map((i) => i - 8)));

// Sharded arrays: zarrita reads sharding_indexed but does not write it, so
// this script assembles the shards itself, by the sharding spec (inner
// chunks, then or after the index of little-endian (offset, nbytes)
// pairs with its CRC-32C; empty inner chunks 2^64-1 twice), and zarrita
// reading them back gives the expected values.
import * as zlib from "node:zlib";
function crc32c(buf) {
  let c = ~0 >>> 0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return ~c >>> 0;
}
async function sharded(name, { shape, shard, inner, indexAt, gzip, value, emptyIf }) {
  const dir = path.join(out, name);
  fs.mkdirSync(dir, { recursive: true });
  const innerCodecs = [le];
  if (gzip) innerCodecs.push({ name: "gzip", configuration: { level: 5 } });
  const meta = {
    zarr_format: 3, node_type: "array", shape, data_type: "int32",
    chunk_grid: { name: "regular", configuration: { chunk_shape: shard } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: -1,
    codecs: [{ name: "sharding_indexed", configuration: {
      chunk_shape: inner, codecs: innerCodecs,
      index_codecs: [le, { name: "crc32c" }], index_location: indexAt } }],
    attributes: {},
  };
  fs.writeFileSync(path.join(dir, "zarr.json"), JSON.stringify(meta, null, 2));
  const per = shard.map((s, i) => s / inner[i]);
  const grid = shape.map((s, i) => Math.ceil(s / shard[i]));
  for (let sy = 0; sy < grid[0]; sy++) for (let sx = 0; sx < grid[1]; sx++) {
    const n = per[0] * per[1];
    const index = Buffer.alloc(16 * n);
    const parts = [];
    let off = indexAt === "start" ? 16 * n + 4 : 0;
    for (let iy = 0; iy < per[0]; iy++) for (let ix = 0; ix < per[1]; ix++) {
      const j = iy * per[1] + ix;
      const y0 = (sy * per[0] + iy) * inner[0], x0 = (sx * per[1] + ix) * inner[1];
      if (y0 >= shape[0] || x0 >= shape[1] || emptyIf(y0, x0)) {
        index.writeBigUInt64LE(0xffffffffffffffffn, 16 * j);
        index.writeBigUInt64LE(0xffffffffffffffffn, 16 * j + 8);
        continue;
      }
      const chunk = Buffer.alloc(4 * inner[0] * inner[1]);
      for (let y = 0; y < inner[0]; y++) for (let x = 0; x < inner[1]; x++) {
        const v = y0 + y < shape[0] && x0 + x < shape[1] ? value(y0 + y, x0 + x) : -1;
        chunk.writeInt32LE(v, 4 * (y * inner[1] + x));
      }
      const enc = gzip ? zlib.gzipSync(chunk) : chunk;
      index.writeBigUInt64LE(BigInt(off), 16 * j);
      index.writeBigUInt64LE(BigInt(enc.length), 16 * j + 8);
      parts.push(enc);
      off += enc.length;
    }
    const crc = Buffer.alloc(4);
    crc.writeUInt32LE(crc32c(index));
    const idx = Buffer.concat([index, crc]);
    const body = indexAt === "start" ? Buffer.concat([idx, ...parts]) : Buffer.concat([...parts, idx]);
    fs.mkdirSync(path.join(dir, "c", String(sy)), { recursive: true });
    fs.writeFileSync(path.join(dir, "c", String(sy), String(sx)), body);
  }
  cases.push(name);
}
// zarrita reads only indexes at the end: the index-at-start shards hold
// the same chunks as a twin with its index at the end, whose values
// zarrita reads stand for both.
const twin = { shape: [10, 9], shard: [6, 6], inner: [3, 3], gzip: true,
  value: (y, x) => y * 1000 - x * 7, emptyIf: (y, x) => y === 3 && x === 3 };
await sharded("sharded_end_gzip", { ...twin, indexAt: "end" });
await sharded("sharded_start_gzip", { ...twin, indexAt: "start" });
const twins = { sharded_start_gzip: "sharded_end_gzip" };
await sharded("sharded_end", { shape: [7, 8], shard: [4, 4], inner: [2, 2], indexAt: "end", gzip: false,
  value: (y, x) => (y + 1) * (x - 3), emptyIf: (y, x) => y === 0 && x === 2 });

// The elements of a zarrita result in C order (a transposed array comes
// back with its own strides).
function cOrder(got) {
  const n = got.shape.reduce((a, b) => a * b, 1);
  const out = [];
  const idx = new Array(got.shape.length).fill(0);
  for (let k = 0; k < n; k++) {
    let off = 0;
    for (let i = 0; i < idx.length; i++) off += idx[i] * got.stride[i];
    out.push(got.data.get ? got.data.get(off) : got.data[off]);
    for (let i = idx.length - 1; i >= 0; i--) {
      if (++idx[i] < got.shape[i]) break;
      idx[i] = 0;
    }
  }
  return out;
}

// What zarrita reads back, as JSON: numbers as strings for 64-bit ints.
const expect = {};
for (const name of cases) {
  const arr = await zarr.open(root.resolve(twins[name] || name), { kind: "array" });
  const got = await zarr.get(arr);
  const vals = cOrder(got).map((v) => typeof v === "bigint" ? v.toString() : (typeof v === "boolean" ? (v ? 1 : 0) : (Number.isNaN(v) ? "NaN" : (v === Infinity ? "Infinity" : v))));
  expect[name] = { shape: got.shape, dtype: arr.dtype, values: vals };
}
fs.writeFileSync(path.join(here, "v3_expect.json"), JSON.stringify(expect) + "\n");
console.log(`wrote ${cases.length} arrays to ${out}`);
