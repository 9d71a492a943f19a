// Cross-check of Zarr v3 with zarrita (make check-zarr).
//
//   node xcheck_v3.mjs write DIR  writes the 512x512x3 uint8 reference image
//                                 in chunks of 100x100x1 with every codec
//                                 zarrita writes to DIR/zarrita_v3.zarr
//   node xcheck_v3.mjs read DIR   reads every array npyflow wrote to
//                                 DIR/npyflow_v3.zarr (sharded ones too)
//                                 and checks its values
import * as fs from "node:fs";
import * as path from "node:path";
const nm = process.env.NODE_PATH || "/tmp/npm-zarr/node_modules";
const zarr = await import(path.join(nm, "zarrita/dist/src/index.js"));
const FileSystemStore = (await import(path.join(nm, "@zarrita/storage/dist/src/fs.js"))).default;
const [mode, dir] = process.argv.slice(2);

function image(h, w) {
  const a = new Uint8Array(h * w * 3);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      for (let k = 0; k < 3; k++) a[(y * w + x) * 3 + k] = (x * 7 + y * 13 + k * 101) & 255;
  return a;
}
const le = { name: "bytes", configuration: { endian: "little" } };
const codecs = {
  raw: [le],
  blosc_lz4: [le, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 1, blocksize: 0 } }],
  blosc_zstd: [le, { name: "blosc", configuration: { cname: "zstd", clevel: 5, shuffle: "bitshuffle", typesize: 1, blocksize: 0 } }],
  zstd: [le, { name: "zstd", configuration: { level: 3, checksum: false } }],
  transposed: [{ name: "transpose", configuration: { order: [2, 0, 1] } }, le],
};

if (mode === "write") {
  const out = path.join(dir, "zarrita_v3.zarr");
  fs.rmSync(out, { recursive: true, force: true });
  const root = zarr.root(new FileSystemStore(out));
  await zarr.create(root);
  const img = image(512, 512);
  for (const [name, c] of Object.entries(codecs)) {
    const arr = await zarr.create(root.resolve(name), { shape: [512, 512, 3], chunkShape: [100, 100, 1], dtype: "uint8", fillValue: 0, codecs: c });
    await zarr.set(arr, null, { data: img, shape: [512, 512, 3], stride: [1536, 3, 1] });
  }
  console.log(`zarrita wrote ${Object.keys(codecs).length} reference images`);
} else {
  const root = zarr.root(new FileSystemStore(path.join(dir, "npyflow_v3.zarr")));
  const meta = JSON.parse(fs.readFileSync(path.join(dir, "npyflow_v3.zarr", "zarr.json")));
  const names = Object.entries(meta.consolidated_metadata.metadata).filter(([, m]) => m.node_type === "array").map(([k]) => k);
  let n = 0;
  for (const name of names) {
    const arr = await zarr.open(root.resolve(name), { kind: "array" });
    const got = await zarr.get(arr);
    const size = got.shape.reduce((a, b) => a * b, 1);
    let want;
    if (name.startsWith("image")) want = image(got.shape[0], got.shape[1]);
    else if (name.startsWith("f8")) want = Float64Array.from({ length: size }, (_, i) => i * 1.25 - 40);
    else if (name.startsWith("str")) want = ["a", "", "grüße", "x\0y", "日本語テキスト", "end", "z"];
    else throw new Error(`unexpected array ${name}`);
    for (let i = 0; i < size; i++) {
      if (got.data[i] !== want[i]) throw new Error(`zarrita reads npyflow's ${name} wrong at ${i}: ${got.data[i]} != ${want[i]}`);
    }
    n++;
  }
  if (n === 0) throw new Error("no arrays in npyflow's output");
  console.log(`zarrita read ${n} npyflow v3 arrays (sharded ones included)`);
}
