#!/usr/bin/env node
// Validate every .gltf and .glb below an export folder with the official Khronos
// glTF-Validator (npm package `gltf-validator`), external .bin buffers resolved.
//
//   node tools/validate.mjs OUT [--max-messages N] [--json FILE]
//
// Prints one summary: files, errors, warnings, infos and hints with their codes. When
// OUT/manifest.json exists, also checks that every glTF file the manifest names
// (`gltf` of each resource, `scene` of each stage) was found and validated, and that no
// glTF file is missing from the manifest.
// Exit status: 0 = no error and no warning; 1 = at least one error or warning (the
// messages are printed); 2 = usage error, no file found, or a manifest mismatch.

import fs from 'node:fs';
import path from 'node:path';
import * as validator from 'gltf-validator';

const SEVERITY = ['error', 'warning', 'info', 'hint'];

function usage(msg) {
  console.error(`validate.mjs: ${msg}\nusage: node tools/validate.mjs OUT [--max-messages N] [--json FILE]`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { dir: null, maxMessages: 50, json: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--max-messages') opts.maxMessages = Number(argv[++i]);
    else if (a === '--json') opts.json = argv[++i];
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else if (opts.dir === null) opts.dir = a;
    else usage(`unexpected argument ${a}`);
  }
  if (opts.dir === null) usage('missing OUT folder');
  if (!Number.isInteger(opts.maxMessages) || opts.maxMessages < 0) usage('--max-messages needs an integer');
  return opts;
}

// Every .gltf/.glb below `root`, as sorted '/'-separated relative paths (no symlinks).
function findModels(root) {
  const out = [];
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.isFile() && /\.(gltf|glb)$/i.test(e.name)) out.push(r);
    }
  };
  walk('');
  return out.sort();
}

// Resolve an external resource relative to the asset, refusing URIs that leave OUT.
function loader(root, rel, loaded) {
  return (uri) => {
    const target = path.resolve(root, path.dirname(rel), decodeURIComponent(uri));
    const inside = path.relative(path.resolve(root), target);
    if (inside.startsWith('..') || path.isAbsolute(inside)) {
      return Promise.reject(new Error(`${uri} resolves outside ${root}`));
    }
    return fs.promises.readFile(target).then((data) => {
      loaded.add(inside.split(path.sep).join('/'));
      return new Uint8Array(data);
    });
  };
}

function manifestPaths(root) {
  const file = path.join(root, 'manifest.json');
  if (!fs.existsSync(file)) return null;
  const m = JSON.parse(fs.readFileSync(file, 'utf8'));
  const paths = new Set();
  for (const c of m.containers ?? []) {
    if (c.scene) paths.add(c.scene);
    for (const r of c.resources ?? []) if (r.gltf) paths.add(r.gltf);
  }
  return paths;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const root = opts.dir;
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) usage(`${root} is not a folder`);
  const files = findModels(root);
  if (files.length === 0) {
    console.error(`validate.mjs: no .gltf or .glb file below ${root}`);
    process.exit(2);
  }

  const totals = { error: 0, warning: 0, info: 0, hint: 0 };
  const codes = { error: new Map(), warning: new Map(), info: new Map(), hint: new Map() };
  const problems = [];
  const loaded = new Set();
  const reports = {};
  let gltfCount = 0;
  let glbCount = 0;
  for (const rel of files) {
    if (rel.toLowerCase().endsWith('.glb')) glbCount++;
    else gltfCount++;
    const bytes = new Uint8Array(fs.readFileSync(path.join(root, rel)));
    const report = await validator.validateBytes(bytes, {
      uri: rel,
      maxIssues: 0,
      writeTimestamp: false,
      externalResourceFunction: loader(root, rel, loaded),
    });
    reports[rel] = report;
    for (const m of report.issues.messages) {
      const sev = SEVERITY[m.severity] ?? 'error';
      totals[sev]++;
      codes[sev].set(m.code, (codes[sev].get(m.code) ?? 0) + 1);
      if (sev === 'error' || sev === 'warning') problems.push({ rel, sev, ...m });
    }
  }

  const fmtCodes = (map) =>
    map.size === 0
      ? ''
      : ' (' + [...map.entries()].sort().map(([c, n]) => `${c} ×${n}`).join(', ') + ')';
  console.log(`glTF-Validator ${validator.version()} over ${root}`);
  console.log(`files: ${files.length} (${gltfCount} .gltf, ${glbCount} .glb), external resources loaded: ${loaded.size}`);
  for (const sev of SEVERITY) console.log(`${sev}s: ${totals[sev]}${fmtCodes(codes[sev])}`);

  for (const p of problems.slice(0, opts.maxMessages || problems.length)) {
    console.log(`  ${p.sev.toUpperCase()} ${p.rel}: ${p.code} at ${p.pointer ?? '/'}: ${p.message}`);
  }
  if (opts.maxMessages && problems.length > opts.maxMessages) {
    console.log(`  … ${problems.length - opts.maxMessages} more`);
  }

  let manifestOk = true;
  const listed = manifestPaths(root);
  if (listed !== null) {
    const found = new Set(files);
    const missing = [...listed].filter((p) => !found.has(p)).sort();
    const unlisted = files.filter((f) => !listed.has(f));
    console.log(`manifest: ${listed.size} glTF files listed, ${missing.length} missing, ${unlisted.length} not listed`);
    for (const p of missing.slice(0, 20)) console.log(`  MISSING ${p}`);
    for (const p of unlisted.slice(0, 20)) console.log(`  NOT LISTED ${p}`);
    manifestOk = missing.length === 0 && unlisted.length === 0;
  }

  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(reports, null, 2) + '\n');
  const ok = totals.error === 0 && totals.warning === 0;
  console.log(ok ? 'result: PASS (0 errors, 0 warnings)' : `result: FAIL (${totals.error} errors, ${totals.warning} warnings)`);
  process.exit(!ok ? 1 : manifestOk ? 0 : 2);
}

main().catch((e) => {
  console.error(`validate.mjs: ${e?.stack ?? e}`);
  process.exit(2);
});
