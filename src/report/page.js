// xbg7-export report page: renders the rows of the JSON blob in #data lazily (a batch
// at a time, as the reader scrolls), filters and sorts them. Text from the disc only
// ever goes through textContent; hrefs come pre-checked and encoded from the exporter.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('data').textContent);
  var DIFF = D.mode === 'diff';
  var BATCH = 150;
  var $ = function (id) { return document.getElementById(id); };
  var list = $('list'), more = $('more'), shown = $('shown');
  var ctl = { q: $('q'), status: $('status'), reason: $('reason'), kind: $('kind'), sort: $('sort') };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  function link(href, text, cls) {
    var a = el('a', cls, text);
    a.setAttribute('href', href);
    return a;
  }
  function img(src, w, h, alt) {
    var i = el('img');
    i.setAttribute('loading', 'lazy');
    i.setAttribute('decoding', 'async');
    i.setAttribute('src', src);
    if (w) { i.width = w; i.height = h; }
    i.alt = alt || '';
    return i;
  }
  function badge(cls, text) { return el('span', 'badge ' + cls, text); }
  function size(n) {
    if (n >= 1048576) return (n / 1048576).toFixed(1) + ' MB';
    if (n >= 1024) return (n / 1024).toFixed(1) + ' KB';
    return n + ' B';
  }
  function num(n) { return n.toLocaleString('en-US'); }
  // "1 container", "2 containers": the one rule for every counted word of the page.
  function plural(n, one, many) { return num(n) + ' ' + (n === 1 ? one : many); }
  function f2(x) { return Math.abs(x) >= 1000 ? x.toExponential(2) : x.toFixed(2); }

  // Flat list of rows, each knowing its group.
  var items = [];
  D.groups.forEach(function (g, gi) {
    g.lpath = g.path.toLowerCase();
    g.tex = g.tex || [];
    g.items = g.rows.map(function (r, k) {
      var it = { g: g, gi: gi, r: r, id: 'r' + gi + '.' + k, key: (r.n + '\u0000' + g.path).toLowerCase() };
      items.push(it);
      return it;
    });
  });

  // ---- state <-> URL hash
  function readHash() {
    var h = location.hash.replace(/^#/, '');
    h.split('&').forEach(function (kv) {
      var i = kv.indexOf('=');
      if (i < 0) return;
      var k = decodeURIComponent(kv.slice(0, i)), v = decodeURIComponent(kv.slice(i + 1));
      if (ctl[k]) ctl[k].value = v;
    });
  }
  function writeHash() {
    var parts = [];
    Object.keys(ctl).forEach(function (k) {
      if (ctl[k].value) parts.push(k + '=' + encodeURIComponent(ctl[k].value));
    });
    var url = parts.length ? '#' + parts.join('&') : location.pathname + location.search;
    if (url === location.hash || (!parts.length && !location.hash)) return;
    try { history.replaceState(null, '', url); } catch (e) { /* some browsers refuse it on file:// */ }
  }

  // ---- filtering and sorting
  function status(r) { return DIFF ? r.c : (r.ok ? 'decoded' : 'rejected'); }
  function matches(it, f) {
    if (f.kind && it.g.kind !== f.kind) return false;
    if (f.status && status(it.r) !== f.status) return false;
    if (f.reason && it.r.rc !== f.reason) return false;
    if (f.q && it.key.indexOf(f.q) < 0) return false;
    return true;
  }
  function groupErrorMatches(g, f) {
    if (!g.ec) return false;
    if (f.kind && g.kind !== f.kind) return false;
    if (f.status && f.status !== 'rejected') return false;
    if (f.reason && g.ec !== f.reason) return false;
    if (f.q && g.lpath.indexOf(f.q) < 0) return false;
    return true;
  }
  var CLASS_ORDER = { regression: 0, gain: 1, change: 2 };
  function cmpStr(a, b) { return a < b ? -1 : a > b ? 1 : 0; }
  function sorter(s) {
    if (s === 'name') return function (a, b) { return cmpStr(a.r.n.toLowerCase(), b.r.n.toLowerCase()) || a.gi - b.gi || a.r.i - b.r.i; };
    if (s === 'tri') return function (a, b) { return b.r.t - a.r.t || a.gi - b.gi || a.r.i - b.r.i; };
    if (s === 'vert') return function (a, b) { return b.r.v - a.r.v || a.gi - b.gi || a.r.i - b.r.i; };
    if (s === 'reason') return function (a, b) {
      if (DIFF) return CLASS_ORDER[a.r.c] - CLASS_ORDER[b.r.c] || a.gi - b.gi;
      return a.r.ok - b.r.ok || cmpStr(a.r.rc || '', b.r.rc || '') || a.gi - b.gi || a.r.i - b.r.i;
    };
    return null;
  }

  // ---- rendering (lazy)
  var plan = [], cursor = 0, section = null, tbody = null, rendered = 0, total = 0;

  function header(tr, cols) {
    cols.forEach(function (c) {
      var th = add(tr, el('th', null, c[0]));
      if (c[1]) { th.dataset.sort = c[1]; th.title = 'sort by ' + c[0]; }
    });
  }
  var COLS = DIFF
    ? [['class', 'reason'], ['#', ''], ['name', 'name'], ['what changed', ''], ['before', ''], ['after', '']]
    : [['', ''], ['#', ''], ['name', 'name'], ['status', 'reason'], ['layout', ''], ['vertices', 'vert'],
       ['triangles', 'tri'], ['sub-meshes', ''], ['bbox', ''], ['digest', ''], ['files', '']];

  function newTable(sec) {
    var t = add(sec, el('table', 'res'));
    header(add(add(t, el('thead')), el('tr')), COLS);
    return add(t, el('tbody'));
  }

  function groupSection(g, flatTitle) {
    var sec = el('section');
    var h = add(sec, el('h2'));
    if (flatTitle) {
      add(h, el('span', null, flatTitle));
      return sec;
    }
    add(h, el('span', 'path', g.path));
    add(h, badge('b-flag', g.kind));
    if (DIFF) {
      add(h, el('span', 'meta', g.cov));
      if (g.opv || g.npv) {
        var gd = add(sec, el('details', 'grid'));
        gd.open = true;
        add(gd, el('summary', null, 'stage grid, before and after'));
        var pair = add(gd, el('div', 'pair'));
        [['before', g.opv], ['after', g.npv]].forEach(function (s) {
          if (!s[1]) return;
          var fig = add(pair, el('figure'));
          add(add(fig, link(s[1])), img(s[1], 0, 0, 'stage grid ' + s[0]));
          add(fig, el('figcaption', null, s[0]));
        });
      }
      return sec;
    }
    var ok = 0;
    g.rows.forEach(function (r) { ok += r.ok; });
    add(h, el('span', 'meta', size(g.size) + ' · ' + ok + '/' + g.rows.length + ' decoded' +
      (g.tex.length ? ' · ' + plural(g.tex.length, 'texture', 'textures') : '') + (g.other ? ' · ' + plural(g.other, 'other entry', 'other entries') : '')));
    if (g.sc) add(h, link(g.sc, 'stage scene', 'meta'));
    if (g.ec) {
      var e = add(sec, el('div', 'err'));
      add(e, badge('b-bad', g.ec));
      add(e, document.createTextNode(' ' + (g.ed || '')));
    }
    if (g.pv) stageGrid(sec, g);
    return sec;
  }

  // A rejected resource's reason code where its picture would be (the detail on hover).
  function why(r) {
    var w = el('div', 'why');
    // Breakable after each '_' (<wbr>: the text stays the code).
    (r.rc || 'rejected').split('_').forEach(function (part, k) {
      if (k) { add(w, document.createTextNode('_')); add(w, el('wbr')); }
      add(w, document.createTextNode(part));
    });
    w.title = r.rd || '';
    return w;
  }

  // The stage grid as labelled cells, one per resource in disc order, each linking to its
  // row; the grid image itself is a link. Big stages fill their cells when opened.
  var GRID_OPEN = 400, GRID_MAX = 3000;
  function stageGrid(sec, g) {
    var d = add(sec, el('details', 'grid'));
    var sum = add(d, el('summary', null, 'stage grid · ' + plural(g.rows.length, 'resource', 'resources') + ' '));
    add(sum, link(g.pv, 'grid image', 'meta'));
    function fillCells() {
      if (d.dataset.filled) return;
      d.dataset.filled = '1';
      var cells = add(d, el('div', 'cells'));
      g.items.slice(0, GRID_MAX).forEach(function (it) {
        var r = it.r, a = add(cells, link('#' + it.id, null, 'cell ' + (r.ok ? 'ok' : 'rej')));
        a.dataset.row = it.id;
        a.title = r.n + (r.ok ? '' : ' — ' + (r.rc || 'rejected') + (r.rd ? ': ' + r.rd : ''));
        if (r.p) add(a, img(r.p, 64, 64, r.n));
        else if (!r.ok) add(a, why(r));
        else add(a, el('div', 'why', 'no preview'));
        add(a, el('span', null, r.n));
      });
      if (g.rows.length > GRID_MAX) add(d, el('div', 'meta', 'the first ' + num(GRID_MAX) + ' of ' + num(g.rows.length) + ' resources; every one is in the table'));
    }
    d.addEventListener('toggle', function () { if (d.open) fillCells(); });
    if (g.rows.length <= GRID_OPEN) { d.open = true; fillCells(); }
  }

  // Bring a resource's row into view: rendered on demand, with the filters cleared when
  // they hide it.
  function reveal(id) {
    var shown = plan.some(function (p) { return p.rows.some(function (x) { return x.id === id; }); });
    if (!shown) {
      Object.keys(ctl).forEach(function (k) { ctl[k].value = ''; });
      apply();
    }
    while (!document.getElementById(id) && !renderMore(BATCH)) { /* render the next batch */ }
    var tr = document.getElementById(id);
    if (!tr) return;
    tr.scrollIntoView({ block: 'center' });
    tr.classList.add('hit');
    setTimeout(function () { tr.classList.remove('hit'); }, 2000);
  }

  function textures(sec, g) {
    if (!g.tex || !g.tex.length) return;
    var ok = 0;
    g.tex.forEach(function (t) { ok += t.ok ? 1 : 0; });
    var d = add(sec, el('details', 'tex'));
    add(d, el('summary', null, g.tex.length + ' textures · ' + ok + ' decoded'));
    d.addEventListener('toggle', function () {
      if (!d.open || d.dataset.filled) return;
      d.dataset.filled = '1';
      var tiles = add(d, el('div', 'tiles'));
      g.tex.forEach(function (t) {
        var tile = add(tiles, el('div', 'tile'));
        if (t.png) add(add(tile, link(t.png)), img(t.png, 64, 64, t.n));
        add(tile, el('b', null, t.n));
        add(tile, el('div', null, [t.f, t.w && t.h ? t.w + '×' + t.h : null].filter(Boolean).join(' ')));
        if (t.rc) {
          var why = add(tile, el('div'));
          add(why, badge('b-bad', t.rc));
          why.title = t.rd || '';
        }
      });
    });
  }

  function exportRow(it, flat) {
    var r = it.r, tr = el('tr', 'r ' + (r.ok ? 'ok' : 'rej'));
    tr.id = it.id;
    tr.dataset.status = r.ok ? 'decoded' : 'rejected';
    if (r.rc) tr.dataset.reason = r.rc;
    var th = add(tr, el('td', 'th'));
    // The small thumbnail (a model's ~thumb, a stage resource's cell), the big one on click.
    if (r.p) add(add(th, link(r.p)), img(r.th || r.p, 48, 48, 'preview of ' + r.n));
    else if (!r.ok) add(th, why(r));
    add(tr, el('td', 'num', r.i));
    var name = add(tr, el('td', 'name'));
    add(name, el('span', 'n', r.n));
    if (r.sky) add(name, document.createTextNode(' ')), add(name, badge('b-flag', 'skybox'));
    if (r.spiky) add(name, document.createTextNode(' ')), add(name, badge('b-flag', 'spiky'));
    if (flat) add(name, el('small', null, it.g.path));
    var st = add(tr, el('td'));
    if (r.ok) {
      add(st, badge('b-ok', 'decoded'));
      var lay = add(tr, el('td', null, (r.l || '') + (r.st ? ' /' + r.st : '') + (r.sm ? ' · streams' : '')));
      lay.title = (r.decl || '') + (r.o !== undefined ? '\nindex buffer at data+0x' + r.o.toString(16) : '') +
        (r.sm ? '\n' + r.sm : '') + (r.w ? '\nwinding ' + r.w : '');
      add(tr, el('td', 'num', num(r.v)));
      add(tr, el('td', 'num', num(r.t)));
      add(tr, el('td', 'num', r.m));
      var bb = add(tr, el('td', 'mono'));
      if (r.bb) {
        bb.textContent = r.bb[1].map(function (hi, k) { return f2(hi - r.bb[0][k]); }).join(' × ');
        bb.title = 'min ' + r.bb[0].join(', ') + '\nmax ' + r.bb[1].join(', ');
      }
      var dg = add(tr, el('td', 'mono', r.dg ? r.dg.slice(0, 10) : ''));
      if (r.dg) dg.title = r.dg;
    } else {
      add(st, badge('b-bad', r.rc || 'rejected'));
      var det = add(tr, el('td', 'detail', r.rd || ''));
      det.colSpan = 6;
    }
    var files = add(tr, el('td', 'files'));
    if (r.g) add(files, link(r.g, /\.glb$/.test(r.g) ? 'glb' : 'gltf'));
    if (r.b) add(files, link(r.b, 'bin'));
    if (r.p) add(files, link(r.p, 'png'));
    return tr;
  }

  function sideCell(tr, s) {
    var td = add(tr, el('td', 'side'));
    if (!s) { td.textContent = '—'; return; }
    if (s.p) add(add(td, link(s.p)), img(s.t || s.p, 48, 48, ''));
    add(td, el('div', null, s.s));
    if (s.g) add(td, link(s.g, /\.glb$/.test(s.g) ? 'glb' : 'gltf'));
  }

  function diffRow(it, flat) {
    var r = it.r, tr = el('tr', 'r ' + r.c);
    tr.dataset.status = r.c;
    if (r.rc) tr.dataset.reason = r.rc;
    add(add(tr, el('td')), badge('b-' + r.c, r.c));
    add(tr, el('td', 'num', r.i === undefined ? '' : r.i));
    var name = add(tr, el('td', 'name'));
    add(name, el('span', 'n', r.n));
    if (flat) add(name, el('small', null, it.g.path));
    add(tr, el('td', 'detail', r.x));
    sideCell(tr, r.old);
    sideCell(tr, r.new);
    return tr;
  }

  function renderMore(budget) {
    var n = 0;
    while (cursor < plan.length && n < budget) {
      var p = plan[cursor];
      if (p.section) {
        section = add(list, p.section);
        tbody = p.rows.length ? newTable(section) : null;
        p.section = null;
        p.at = 0;
      }
      while (p.at < p.rows.length && n < budget) {
        tbody.appendChild((DIFF ? diffRow : exportRow)(p.rows[p.at], p.flat));
        p.at++; n++; rendered++;
      }
      if (p.at >= p.rows.length) {
        if (p.g && !p.flat && !DIFF) textures(section, p.g);
        cursor++;
        n++;
      }
    }
    var done = cursor >= plan.length;
    more.hidden = done;
    document.body.dataset.rendered = String(rendered);
    document.body.dataset.complete = done ? '1' : '0';
    if (!done) more.firstChild.textContent = 'show all (' + plural(total - rendered, 'more row', 'more rows') + ')';
    return done;
  }

  function apply() {
    var f = {
      q: ctl.q.value.trim().toLowerCase(), status: ctl.status.value, reason: ctl.reason.value,
      kind: ctl.kind.value, sort: ctl.sort.value
    };
    writeHash();
    var any = f.q || f.status || f.reason || f.kind;
    var hit = items.filter(function (it) { return matches(it, f); });
    total = hit.length;
    plan = [];
    var srt = sorter(f.sort);
    if (srt) {
      hit.sort(srt);
      if (hit.length) plan.push({ section: groupSection(null, 'matching rows, ' + ctl.sort.options[ctl.sort.selectedIndex].text), rows: hit, flat: true });
    } else {
      var by = new Map();
      hit.forEach(function (it) {
        if (!by.has(it.gi)) by.set(it.gi, []);
        by.get(it.gi).push(it);
      });
      D.groups.forEach(function (g, gi) {
        var rows = by.get(gi);
        if (rows || (!DIFF && groupErrorMatches(g, f)) || !any) {
          plan.push({ section: groupSection(g), rows: rows || [], g: g });
        }
      });
    }
    list.textContent = '';
    cursor = 0; rendered = 0; section = null; tbody = null;
    var containers = new Set(hit.map(function (it) { return it.gi; })).size;
    shown.textContent = num(total) + ' of ' + num(items.length) + (DIFF ? ' facts' : ' resources') +
      ' in ' + plural(containers, 'container', 'containers');
    document.body.dataset.rows = String(total);
    if (!plan.length) add(list, el('div', 'empty', 'nothing matches'));
    renderMore(BATCH);
    fill();
  }

  // Keep rendering while the "more" marker is near the viewport.
  var pending = false;
  function fill() {
    if (pending || more.hidden) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      if (more.hidden) return;
      if (more.getBoundingClientRect().top < window.innerHeight + 1500) {
        renderMore(BATCH);
        fill();
      }
    });
  }
  if ('IntersectionObserver' in window) {
    new IntersectionObserver(function (es) {
      if (es.some(function (e) { return e.isIntersecting; })) fill();
    }, { rootMargin: '1500px 0px' }).observe(more);
  }
  window.addEventListener('scroll', fill, { passive: true });
  $('all').addEventListener('click', function () { renderMore(Infinity); });

  var timer = 0;
  ctl.q.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(apply, 120); });
  ['status', 'reason', 'kind', 'sort'].forEach(function (k) { ctl[k].addEventListener('change', apply); });
  document.addEventListener('click', function (e) {
    var cell = e.target.closest ? e.target.closest('a.cell[data-row]') : null;
    if (cell) {
      e.preventDefault();
      reveal(cell.dataset.row);
      return;
    }
    var t = e.target.closest ? e.target.closest('[data-reason].pick, th[data-sort]') : null;
    if (!t) return;
    if (t.dataset.sort) ctl.sort.value = t.dataset.sort;
    else { ctl.reason.value = t.dataset.reason; ctl.status.value = ''; }
    apply();
    $('bar').scrollIntoView();
  });
  window.addEventListener('hashchange', function () { readHash(); apply(); });

  // For scripts (the browser test) and the console.
  window.xbg7Report = { apply: apply, reveal: reveal, renderAll: function () { return renderMore(Infinity); } };
  readHash();
  apply();
  window.xbg7Report.readyMs = performance.now();
  document.body.dataset.ready = '1';
})();
