#!/usr/bin/env node
// Browser test of the HTML coverage report (OUT/index.html) in headless Chromium
// (Debian's /usr/bin/chromium, driven by puppeteer-core; no bundled browser).
//
//   node tools/report-test.mjs --bin BIN --work DIR [--disc DEMO_DISC] [--screenshot PNG] [--chromium PATH]
//   node tools/report-test.mjs --load OUT [--runs N]      # load time of OUT/index.html only
//
// With --bin: generates the demo disc (BIN synth; or takes --disc, a demo disc that is only
// read) and exports it with (small) previews,
// then checks its page: no console errors or failed requests; as many rows as the
// manifest has resources (rendered lazily, by scrolling); filtering by each reason code
// shows exactly those resources, and by name and status too; every image loads and every
// link resolves to a file inside OUT. Then a hostile disc (demo models with resource names
// overwritten by markup, a truncated file, a file named like markup): names render as
// text and nothing is injected. Then a diff page (BIN diff --format html) of the demo
// manifest against an edited copy. --screenshot saves the demo page.
// Exit status 0 = every check passed, 1 = a check failed, 2 = usage or setup error.

import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';

function usage(msg) {
  console.error(`report-test.mjs: ${msg}\nusage: node tools/report-test.mjs --bin BIN --work DIR [--screenshot PNG] | --load OUT [--runs N]`);
  process.exit(2);
}

const opts = { bin: null, work: null, disc: null, screenshot: null, load: null, runs: 5, chromium: process.env.CHROMIUM || '/usr/bin/chromium' };
{
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i++) {
    const k = a[i], v = a[i + 1];
    if (k === '--bin') opts.bin = v, i++;
    else if (k === '--work') opts.work = v, i++;
    else if (k === '--screenshot') opts.screenshot = v, i++;
    else if (k === '--load') opts.load = v, i++;
    else if (k === '--disc') opts.disc = v, i++;
    else if (k === '--runs') opts.runs = Number(v), i++;
    else if (k === '--chromium') opts.chromium = v, i++;
    else usage(`unknown argument ${k}`);
  }
  if (!opts.load && (!opts.bin || !opts.work)) usage('need --bin and --work, or --load');
  if (!fs.existsSync(opts.chromium)) usage(`no Chromium at ${opts.chromium} (apt-get install chromium)`);
}

let failures = 0;
function check(ok, what, detail) {
  if (ok) console.log(`  ok   ${what}`);
  else {
    failures++;
    console.log(`  FAIL ${what}${detail !== undefined ? `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}` : ''}`);
  }
}

const browser = await puppeteer.launch({
  executablePath: opts.chromium,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--allow-file-access-from-files', '--disable-dev-shm-usage'],
});

/// Open a page and collect console errors, page errors and failed requests.
async function open(file, { width = 1280, height = 900 } = {}) {
  const page = await browser.newPage();
  await page.setViewport({ width, height, deviceScaleFactor: 1 });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warn') errors.push(`console.${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('dialog', async (d) => { errors.push(`dialog: ${d.message()}`); await d.dismiss(); });
  const t0 = Date.now();
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  try {
    await page.waitForFunction(() => document.body.dataset.ready === '1', { timeout: 60000 });
  } catch (e) {
    throw new Error(`${file} never became ready: ${e.message}; ${errors.join('; ')}`);
  }
  const wall = Date.now() - t0;
  return { page, errors, wall };
}

const manifestOf = (out) => JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
const resources = (m) => m.containers.flatMap((c) => c.resources.map((r) => ({ c, r })));

/// Scroll to the end until every row is rendered (the page renders in batches).
async function scrollAll(page) {
  let steps = 0;
  while (await page.evaluate(() => document.body.dataset.complete !== '1')) {
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await new Promise((r) => setTimeout(r, 30));
    if (++steps > 5000) throw new Error('rows never finished rendering');
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  return steps;
}

async function setFilter(page, f) {
  await page.evaluate((f) => {
    for (const k of ['q', 'status', 'reason', 'kind', 'sort']) document.getElementById(k).value = f[k] || '';
    window.xbg7Report.apply();
    window.xbg7Report.renderAll();
  }, f);
  return page.evaluate(() => [...document.querySelectorAll('tr.r')].map((tr) => ({
    name: tr.querySelector('.n').textContent, status: tr.dataset.status || '', reason: tr.dataset.reason || '',
  })));
}

/// Every image loads and every link names an existing file inside `root`.
async function checkAssets(page, root, label) {
  await page.evaluate(() => {
    window.xbg7Report.renderAll();
    for (const d of document.querySelectorAll('details')) d.open = true;
  });
  await new Promise((r) => setTimeout(r, 200));
  await page.evaluate(() => { for (const i of document.querySelectorAll('img')) i.loading = 'eager'; });
  await page.waitForFunction(() => [...document.querySelectorAll('img')].every((i) => i.complete), { timeout: 120000 });
  const { imgs, links } = await page.evaluate(() => ({
    imgs: [...document.querySelectorAll('img')].map((i) => ({ src: i.src, w: i.naturalWidth })),
    links: [...document.querySelectorAll('a[href]')].map((a) => a.href),
  }));
  const rootAbs = fs.realpathSync(root) + path.sep;
  const bad = [];
  for (const u of [...imgs.map((i) => i.src), ...links]) {
    if (!u.startsWith('file://')) { bad.push(`not a file link: ${u}`); continue; }
    const p = fileURLToPath(u.split('#')[0]);
    if (!fs.existsSync(p)) bad.push(`missing: ${p}`);
    else if (!fs.realpathSync(p).startsWith(rootAbs)) bad.push(`outside ${root}: ${p}`);
  }
  const broken = imgs.filter((i) => i.w === 0).map((i) => i.src);
  check(imgs.length > 0 && broken.length === 0, `${label}: ${imgs.length} images load`, broken.slice(0, 5));
  check(links.length > 0 && bad.length === 0, `${label}: ${links.length} links resolve inside the folder`, bad.slice(0, 5));
}

// ---------------------------------------------------------------------------------------
if (opts.load) {
  // Load time only: median of N fresh loads (navigation start → rows rendered).
  const file = path.join(opts.load, 'index.html');
  const m = manifestOf(opts.load);
  const times = [];
  for (let i = 0; i < opts.runs; i++) {
    const { page, errors } = await open(file);
    const t = await page.evaluate(() => ({
      dcl: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
      ready: window.xbg7Report.readyMs,
      load: performance.getEntriesByType('navigation')[0].loadEventEnd,
    }));
    const steps = await scrollAll(page);
    const rows = await page.evaluate(() => document.querySelectorAll('tr.r').length);
    times.push(t);
    console.log(`run ${i + 1}: DOMContentLoaded ${t.dcl.toFixed(0)} ms, first rows ${t.ready.toFixed(0)} ms, load ${t.load.toFixed(0)} ms; ${rows} rows after ${steps} scroll steps; ${errors.length} errors`);
    await page.close();
  }
  const med = (k) => times.map((t) => t[k]).sort((a, b) => a - b)[Math.floor(times.length / 2)];
  const size = fs.statSync(file).size;
  console.log(`index.html ${(size / 1048576).toFixed(2)} MB, ${resources(m).length} resources: median DOMContentLoaded ${med('dcl').toFixed(0)} ms, first rows ${med('ready').toFixed(0)} ms, load ${med('load').toFixed(0)} ms`);
  await browser.close();
  process.exit(0);
}

fs.mkdirSync(opts.work, { recursive: true });
const run = (args) => execFileSync(opts.bin, args, { stdio: ['ignore', 'pipe', 'inherit'] }).toString();

// ---- 1. the demo export (small previews: the debug binary renders slowly; the page is the same)
const disc = opts.disc || path.join(opts.work, 'disc');
const demo = path.join(opts.work, 'demo');
const small = path.join(opts.work, 'small-previews.toml');
fs.writeFileSync(small, '[output]\npreview_size = 128\nstage_cell = 64\n');
let t = Date.now();
if (!opts.disc) run(['synth', '--out', disc]);
run(['--disc', disc, '--out', demo, '--quiet', '--config', small]);
console.log(`== demo disc exported with previews (${((Date.now() - t) / 1000).toFixed(1)} s)`);
{
  const m = manifestOf(demo);
  const all = resources(m);
  check(m.report === 'index.html', 'the manifest lists index.html');
  const { page, errors, wall } = await open(path.join(demo, 'index.html'));
  const ready = await page.evaluate(() => window.xbg7Report.readyMs);
  console.log(`  page ready in ${ready.toFixed(0)} ms (${wall} ms wall, ${all.length} resources)`);
  const first = await page.evaluate(() => document.querySelectorAll('tr.r').length);
  const steps = await scrollAll(page);
  const rows = await page.evaluate(() => document.querySelectorAll('tr.r').length);
  check(first < all.length, `rendered lazily: ${first} rows at first`);
  check(rows === all.length, `${rows} rows after ${steps} scroll steps = ${all.length} resources in the manifest`);
  const sections = await page.evaluate(() => document.querySelectorAll('main section').length);
  check(sections === m.containers.length, `${sections} sections = ${m.containers.length} containers`);

  const codes = [...new Set(all.filter((x) => x.r.reason).map((x) => x.r.reason.code))].sort();
  check(codes.length > 0, `reason codes to filter by: ${codes.join(', ')}`);
  for (const code of codes) {
    const want = all.filter((x) => x.r.reason?.code === code).map((x) => x.r.name).sort();
    const got = await setFilter(page, { reason: code });
    const names = got.map((g) => g.name).sort();
    check(got.every((g) => g.reason === code) && JSON.stringify(names) === JSON.stringify(want),
      `reason ${code}: ${got.length} rows = ${want.length} resources`);
  }
  const rej = await setFilter(page, { status: 'rejected' });
  check(rej.length === all.filter((x) => x.r.status === 'rejected').length && rej.every((g) => g.status === 'rejected'),
    `status rejected: ${rej.length} rows`);
  const probe = all.find((x) => x.r.status === 'decoded').r.name;
  const byName = await setFilter(page, { q: probe });
  const wantName = all.filter((x) => (x.r.name + '\0' + x.c.path).toLowerCase().includes(probe.toLowerCase())).length;
  check(byName.length === wantName && byName.some((g) => g.name === probe), `name filter "${probe}": ${byName.length} rows`);
  const sorted = await setFilter(page, { sort: 'tri' });
  check(sorted.length === all.length, `sorted by triangles: ${sorted.length} rows`);
  // Clicking a reason code in the summary (rejects per code) filters by it.
  const rejectCode = Object.keys(m.summary.reasons).sort()[0];
  await setFilter(page, {});
  await page.click(`button.pick[data-reason="${rejectCode}"]`);
  const clicked = await page.evaluate(() => document.body.dataset.rows);
  check(Number(clicked) === all.filter((x) => x.r.reason?.code === rejectCode).length, `clicking ${rejectCode} in the summary: ${clicked} rows`);
  check(/reason=/.test(await page.evaluate(() => location.hash)), 'the filter is kept in the URL hash');

  await setFilter(page, {});
  await checkAssets(page, demo, 'demo');
  // Every decoded resource's row shows its picture (loaded), every rejected row its reason
  // code where the picture would be; every stage grid is one labelled cell per resource.
  const decoded = all.filter((x) => x.r.status === 'decoded').length;
  const stages = m.containers.filter((c) => c.kind === 'stage' && c.preview);
  const seen = await page.evaluate(() => {
    const rows = [...document.querySelectorAll('tr.r')];
    const loaded = (i) => !!i && i.naturalWidth > 0;
    const grids = {};
    for (const sec of document.querySelectorAll('main section')) {
      const cells = [...sec.querySelectorAll('.cells a.cell')];
      if (!cells.length) continue;
      grids[sec.querySelector('h2 .path').textContent] = cells.map((a) => ({
        name: a.querySelector('span').textContent, img: loaded(a.querySelector('img')),
        why: a.querySelector('.why')?.textContent || null, row: a.dataset.row,
      }));
    }
    return {
      imgs: [...document.querySelectorAll('img')].filter(loaded).length,
      rowImgs: [...document.querySelectorAll('tr.r img')].filter(loaded).length,
      okLoaded: rows.filter((tr) => tr.classList.contains('ok') && loaded(tr.querySelector('td.th img'))).length,
      rejected: rows.filter((tr) => tr.classList.contains('rej'))
        .map((tr) => [tr.dataset.reason, tr.querySelector('td.th .why')?.textContent]),
      grids,
    };
  });
  check(seen.okLoaded === decoded && seen.rowImgs === decoded,
    `rows: ${seen.rowImgs} images loaded (${seen.okLoaded} in decoded rows) = ${decoded} decoded resources (${seen.imgs} images on the page)`);
  check(seen.rejected.length > 0 && seen.rejected.every(([code, shown]) => code && shown === code),
    `each of ${seen.rejected.length} rejected rows shows its reason code where the picture would be`);
  const gridOk = stages.every((c) => {
    const g = seen.grids[c.path] || [];
    return g.length === c.resources.length && c.resources.every((r, k) => g[k].name === r.name &&
      (r.status === 'decoded' ? g[k].img : g[k].why === r.reason.code));
  });
  const cells = Object.values(seen.grids).reduce((n, g) => n + g.length, 0);
  check(stages.length > 0 && gridOk && Object.keys(seen.grids).length === stages.length,
    `${stages.length} stage grids: ${cells} labelled cells, one per resource, pictures loaded, rejects with their code`);
  check(errors.length === 0, 'no console errors, page errors or failed requests', errors.slice(0, 5));
  await page.close();

  // A grid cell links to its row: on a fresh page, with a filter hiding it, the last cell
  // of the biggest stage renders its row, clears the filter and scrolls it into view.
  {
    const big = stages.reduce((a, c) => (c.resources.length > a.resources.length ? c : a));
    const { page: p, errors: errs } = await open(path.join(demo, 'index.html'));
    await p.evaluate((q) => { document.getElementById('q').value = q; window.xbg7Report.apply(); }, big.resources[0].name);
    const got = await p.evaluate((stage) => {
      const sec = [...document.querySelectorAll('main section')].find((s) => s.querySelector('h2 .path')?.textContent === stage);
      const cells = sec ? [...sec.querySelectorAll('.cells a.cell')] : [];
      const last = cells[cells.length - 1];
      if (!last) return { cells: 0 };
      const before = !!document.getElementById(last.dataset.row);
      last.click();
      const tr = document.getElementById(last.dataset.row);
      const box = tr ? tr.getBoundingClientRect() : null;
      return {
        cells: cells.length, before, name: tr?.querySelector('.n').textContent, hit: tr?.classList.contains('hit'),
        inView: !!box && box.top >= 0 && box.bottom <= window.innerHeight, q: document.getElementById('q').value,
      };
    }, big.path);
    const lastName = big.resources[big.resources.length - 1].name;
    check(got.cells === big.resources.length && got.before === false && got.name === lastName && got.hit && got.inView && got.q === '',
      `clicking the last cell of ${big.path} (${got.cells} cells) shows its row "${lastName}"`, got);
    check(errs.length === 0, 'no console errors after the click', errs.slice(0, 5));
    await p.close();
  }

  if (opts.screenshot) {
    const { page: p } = await open(path.join(demo, 'index.html'), { width: 1200, height: 835 });
    await p.evaluate(() => {
      document.getElementById('kind').value = 'model';
      window.xbg7Report.apply();
      document.querySelector('details.tex').open = true;
    });
    await new Promise((r) => setTimeout(r, 100));
    await p.evaluate(() => { for (const i of document.querySelectorAll('img')) i.loading = 'eager'; });
    await p.waitForFunction(() => [...document.querySelectorAll('img')].every((i) => i.complete), { timeout: 60000 });
    await p.screenshot({ path: opts.screenshot });
    console.log(`  screenshot: ${opts.screenshot} (${fs.statSync(opts.screenshot).size} bytes)`);
    await p.close();
  }
}

// ---- 2. a hostile disc: four demo models whose resource names are overwritten (in place,
// same length) with markup that would run if it were parsed, a truncated file, a non-XPR2 one.
{
  const hdisc = path.join(opts.work, 'hostile-disc', 'hidden', 'resource3d');
  const out = path.join(opts.work, 'hostile-out');
  fs.mkdirSync(hdisc, { recursive: true });
  const payloads = ['</script><b>x</b>', '<svg onload=f()>', '<!--&lt;-->', '<img src=x>'];
  const m0 = manifestOf(demo);
  const long = m0.containers.filter((c) => c.kind === 'model' && !c.error)
    .flatMap((c) => c.resources.map((r) => ({ c, r }))).filter((x) => Buffer.byteLength(x.r.name) >= 17);
  const used = new Set(), want = [];
  for (const p of payloads) {
    const x = long.find((x) => !used.has(x.c.path));
    if (!x) break;
    used.add(x.c.path);
    const file = path.join(disc, x.c.path);
    const b = fs.readFileSync(file);
    const old = Buffer.from(x.r.name + '\0');
    const name = (p + '_'.repeat(64)).slice(0, Math.max(p.length, x.r.name.length));
    const at = b.indexOf(old);
    if (at < 0 || name.length !== x.r.name.length) continue;
    Buffer.from(name).copy(b, at);
    fs.writeFileSync(path.join(hdisc, path.basename(file)), b);
    want.push(name);
  }
  check(want.length >= 3, `markup names written into ${want.length} containers: ${JSON.stringify(want)}`);
  const some = fs.readFileSync(path.join(disc, long[0].c.path));
  fs.writeFileSync(path.join(hdisc, 'truncated.xpr'), some.subarray(0, 100));
  fs.writeFileSync(path.join(hdisc, '<img src=x onerror=f()>.xpr'), '<script>not a container</script>');
  t = Date.now();
  run(['--disc', path.dirname(path.dirname(hdisc)), '--out', out, '--quiet', '--config', small]);
  console.log(`== hostile disc exported (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  const m = manifestOf(out);
  const all = resources(m);
  check(want.every((n) => all.some((x) => x.r.name === n)), 'the manifest carries the markup names');
  const { page, errors } = await open(path.join(out, 'index.html'));
  await scrollAll(page);
  const r = await page.evaluate((want) => ({
    rows: document.querySelectorAll('tr.r').length,
    texts: want.map((w) => [...document.querySelectorAll('tr.r .n')].filter((n) => n.textContent === w).length),
    paths: [...document.querySelectorAll('section h2 .path')].map((p) => p.textContent),
    scripts: document.querySelectorAll('script').length,
    injected: document.querySelectorAll('main b, main svg, main script, img[src="x"], h2 b').length,
    errorSections: [...document.querySelectorAll('section .err')].length,
  }), want);
  check(r.rows === all.length, `${r.rows} rows = ${all.length} resources`);
  check(r.texts.every((n) => n === 1), `each markup name shows as text in its row: ${JSON.stringify(r.texts)}`);
  check(r.paths.includes('hidden/resource3d/<img src=x onerror=f()>.xpr'), 'a markup file name shows as text');
  check(r.scripts === 2 && r.injected === 0, 'nothing injected (2 script elements, no b/svg/img[src=x] in the rows)', r);
  const errs = m.containers.filter((c) => c.error).length;
  check(errs === 2 && r.errorSections === errs, `${r.errorSections} container errors shown = ${errs} in the manifest`);
  await checkAssets(page, out, 'hostile');
  check(errors.length === 0, 'no console errors, page errors or failed requests', errors.slice(0, 5));
  await page.close();
}

// ---- 3. a diff page: the demo manifest against an edited copy (in the same folder)
{
  const m = manifestOf(demo);
  const dec = m.containers.flatMap((c) => c.resources).filter((r) => r.status === 'decoded');
  const rej = m.containers.flatMap((c) => c.resources).filter((r) => r.status === 'rejected');
  const [lost, changed] = [dec[0], dec[dec.length - 1]];
  const gained = rej[0];
  const names = [lost.name, changed.name, gained.name];
  Object.assign(lost, { status: 'rejected', reason: { code: 'ambiguous_anchor', detail: 'edited for the test' } });
  for (const k of ['layout', 'offset', 'stride', 'declaration', 'bbox', 'digest', 'winding', 'gltf', 'bin', 'preview', 'thumb']) delete lost[k];
  changed.digest = '0'.repeat(64);
  Object.assign(gained, { status: 'decoded', vertices: 3, triangles: 1 });
  delete gained.reason;
  const edited = path.join(demo, 'edited.json');
  fs.writeFileSync(edited, JSON.stringify(m));
  const page_ = path.join(opts.work, 'diff', 'diff.html');
  fs.mkdirSync(path.dirname(page_), { recursive: true });
  run(['diff', path.join(demo, 'manifest.json'), edited, '--format', 'html', '-o', page_, '--allow-regressions']);
  console.log('== diff page');
  const { page, errors } = await open(page_);
  await scrollAll(page);
  const rows = await page.evaluate(() => [...document.querySelectorAll('tr.r')].map((tr) => [tr.dataset.status, tr.querySelector('.n').textContent]));
  check(rows.length === 3 && names.every((n) => rows.some((r) => r[1] === n)), `3 facts listed: ${JSON.stringify(rows)}`);
  const cls = Object.fromEntries(rows.map((r) => [r[1], r[0]]));
  check(cls[lost.name] === 'regression' && cls[changed.name] === 'regression' && cls[gained.name] === 'gain',
    'classes: newly rejected and changed digest are regressions, newly decoded a gain');
  const regs = await setFilter(page, { status: 'regression' });
  check(regs.length === 2, `class filter: ${regs.length} regressions`);
  await setFilter(page, {});
  await checkAssets(page, demo, 'diff');
  check(errors.length === 0, 'no console errors, page errors or failed requests', errors.slice(0, 5));
  await page.close();
}

await browser.close();
console.log(failures === 0 ? 'report browser test: all checks passed' : `report browser test: ${failures} check(s) FAILED`);
process.exit(failures === 0 ? 0 : 1);
