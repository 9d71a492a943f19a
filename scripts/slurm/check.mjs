// Checks a committed npyflow dataset as a reader sees it, with DuckDB:
// every Parquet file under the root (hive_partitioning: site and station
// from the directory names), aggregated per partition and compared with
// the aggregates numpy computed from the inputs (gen_inputs.py); and
// _SUCCESS, whose "published" list must name exactly those files.
//
// usage: node check.mjs ROOT EXPECTED.json MODULES
//   ROOT     a directory, or http://host:port/bucket/prefix: an S3 API
//            endpoint, listed and downloaded (anonymous) into a
//            temporary directory first, skipping what readers skip
//            (names starting with _ or ., but _SUCCESS itself)
//   MODULES  a directory with node_modules/@duckdb/node-api
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const [rootArg, expectedFile, mods] = process.argv.slice(2);
const require = createRequire(path.join(mods, 'package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');
const fail = (msg) => { console.error(`check.mjs: ${rootArg}: ${msg}`); process.exit(1); };

// mirror downloads the objects under an S3 prefix that readers see.
async function mirror(url) {
  const u = new URL(url);
  const [, bucket, ...rest] = u.pathname.split('/');
  const prefix = rest.join('/').replace(/\/?$/, '/');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'npyflow-check-'));
  let token = '';
  for (;;) {
    const q = new URLSearchParams({ 'list-type': '2', prefix });
    if (token) q.set('continuation-token', token);
    const res = await fetch(`${u.origin}/${bucket}?${q}`);
    if (!res.ok) fail(`listing: HTTP ${res.status}`);
    const xml = await res.text();
    for (const m of xml.matchAll(/<Key>([^<]*)<\/Key>/g)) {
      const key = m[1].replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&apos;', "'");
      const rel = key.slice(prefix.length);
      if (rel !== '_SUCCESS' && rel.split('/').some((e) => e.startsWith('_') || e.startsWith('.'))) continue;
      const obj = await fetch(`${u.origin}/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`);
      if (!obj.ok) fail(`${key}: HTTP ${obj.status}`);
      const p = path.join(dir, ...rel.split('/'));
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, Buffer.from(await obj.arrayBuffer()));
    }
    const next = xml.match(/<NextContinuationToken>([^<]*)<\/NextContinuationToken>/);
    if (!next) return dir;
    token = next[1];
  }
}

const root = /^https?:\/\//.test(rootArg) ? await mirror(rootArg) : rootArg;
const want = JSON.parse(fs.readFileSync(expectedFile, 'utf8'));

// The files a reader sees: no element of the path starts with _ or .
const visible = [];
(function walk(d, rel) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    if (e.name.startsWith('_') || e.name.startsWith('.')) continue;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) walk(path.join(d, e.name), r);
    else visible.push(r);
  }
})(root, '');
visible.sort();
if (visible.length === 0 || visible.some((f) => !f.endsWith('.parquet'))) fail(`visible files: ${visible.join(', ')}`);
let success;
try {
  success = JSON.parse(fs.readFileSync(path.join(root, '_SUCCESS'), 'utf8'));
} catch (e) {
  fail(`no readable _SUCCESS: ${e.message}`);
}
const published = [...(success.published ?? [])].sort();
if (JSON.stringify(published) !== JSON.stringify(visible)) {
  fail(`_SUCCESS lists ${published.length} files, readers see ${visible.length}`);
}

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const glob = path.join(root, '**', '*.parquet').replaceAll("'", "''");
const r = await con.runAndReadAll(`
  SELECT site, station, count(*) AS n, sum(id) AS id_sum, count(*) FILTER (WHERE ok) AS ok, sum(temp) AS temp_sum
  FROM read_parquet('${glob}', hive_partitioning = true)
  GROUP BY site, station ORDER BY site, station`);
const got = {};
for (const o of r.getRowObjectsJson()) {
  got[`${o.site}|${o.station}`] = { n: Number(o.n), id_sum: Number(o.id_sum), ok: Number(o.ok), temp_sum: Number(o.temp_sum) };
}
let rows = 0;
for (const k of new Set([...Object.keys(want), ...Object.keys(got)])) {
  const w = want[k], g = got[k];
  if (!w || !g || w.n !== g.n || w.id_sum !== g.id_sum || w.ok !== g.ok || Math.abs(w.temp_sum - g.temp_sum) > 1e-6 * Math.max(1, Math.abs(w.temp_sum))) {
    fail(`partition ${k}: DuckDB ${JSON.stringify(g)}, numpy ${JSON.stringify(w)}`);
  }
  rows += g.n;
}
console.log(`ok: DuckDB read ${rows} rows in ${Object.keys(got).length} partitions from ${visible.length} files, as _SUCCESS lists (run ${success.run})`);
