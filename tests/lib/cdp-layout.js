#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// tests/lib/cdp-layout.js: does every table of a page fit, on a 1280 px wide screen and on
// paper? Opens each page in real headless Chromium over the DevTools protocol (spoken over
// --remote-debugging-pipe as tests/lib/cdp-report.js does: no port, no WebSocket, no npm
// package) and measures the laid-out page twice: at a 1280 x 900 viewport with screen media,
// and with print media at the printable width of a Letter page at Chromium's default margins
// (8.5 in - 2 x 0.4 in = 739 CSS px; A4's is 718 px, so 718 is what is used: the narrower).
// Used by tests/e2e/pages_print.sh.
//
// usage: node cdp-layout.js CHROMIUM OUTDIR PAGE.html [PAGE.html ...]
// For each visible <table> (tables in closed <details> are not laid out and are skipped): the
// table's box is no wider than the box that holds it (its .table-wrap, whose overflow would
// otherwise scroll on screen and clip on paper: scrollWidth <= clientWidth), and no cell's
// right edge passes that box's right edge; the document itself does not scroll sideways. Each
// failure names the table (its section and number) and the headers of its cut columns. A
// screenshot at 1280 px is kept (OUTDIR/NAME-1280.png) for a person to look at.
// What it proves: in Chromium's own layout, at those two widths, no column of any shown table
// lies outside what the reader sees (a scrolled-away column counts as hidden). It does not
// prove the printed PDF holds the text: tests/e2e/pages_print.sh checks that with pdftotext.
// Prints "ok   ..." / "FAIL ..." lines; exits 1 if anything failed.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [chromium, outdir, ...pages] = process.argv.slice(2);
const PRINT_WIDTH = 718;
let fails = 0;
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) fails++; };

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'rl-chromium-'));
const browser = spawn(chromium, [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-default-apps', '--disable-extensions', '--mute-audio', '--hide-scrollbars',
  `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank',
], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
let stderr = '';
browser.stderr.on('data', (d) => { stderr += d; });
let nextId = 1, inbuf = Buffer.alloc(0);
const pending = new Map(), listeners = new Set();
browser.stdio[4].on('data', (chunk) => {
  inbuf = Buffer.concat([inbuf, chunk]);
  let z;
  while ((z = inbuf.indexOf(0)) >= 0) {
    const msg = JSON.parse(inbuf.subarray(0, z).toString('utf8'));
    inbuf = inbuf.subarray(z + 1);
    const p = msg.id && pending.get(msg.id);
    if (p) {
      pending.delete(msg.id);
      msg.error ? p.reject(new Error(JSON.stringify(msg.error))) : p.resolve(msg.result);
    } else for (const l of listeners) l(msg);
  }
});
function send(method, params = {}, sessionId) {
  const id = nextId++;
  browser.stdio[3].write(JSON.stringify({ id, method, params, sessionId }) + '\0');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { if (pending.delete(id)) reject(new Error(`${method}: no answer in 60 s`)); }, 60000);
    pending.set(id, { resolve: (v) => { clearTimeout(timer); resolve(v); }, reject: (e) => { clearTimeout(timer); reject(e); } });
  });
}

// The measurement, run in the page: one entry per visible table.
const MEASURE = `(() => {
  const out = [];
  const tables = [...document.querySelectorAll('table')];
  tables.forEach((t, n) => {
    const r = t.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return; /* in a closed <details>, or not shown */
    const box = t.closest('.table-wrap') || t.parentElement;
    const b = box.getBoundingClientRect();
    const sec = t.closest('section[id], div[id]');
    const heads = [...t.querySelectorAll('thead th')].map((h) => h.textContent.trim());
    const cut = new Set();
    for (const row of t.rows)
      [...row.cells].forEach((c, i) => {
        if (c.getBoundingClientRect().right > b.right + 1) cut.add(heads[i] || '#' + i);
      });
    out.push({ where: (sec ? sec.id : 'page') + ' table ' + n, width: Math.round(r.width),
      box: box.clientWidth, scroll: box.scrollWidth, cut: [...cut] });
  });
  const W = document.documentElement.clientWidth;
  /* what sticks out, when something does: the innermost elements past the right edge */
  const wide = [...document.body.querySelectorAll('*')].filter((e) => e.getBoundingClientRect().right > W + 1 &&
    ![...e.children].some((c) => c.getBoundingClientRect().right > W + 1))
    .slice(0, 3).map((e) => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + ' "' + e.textContent.trim().slice(0, 60) + '"');
  return { tables: out, docScroll: document.documentElement.scrollWidth, docWidth: W, wide };
})()`;

async function measure(sessionId, what, name) {
  const r = await send('Runtime.evaluate', { expression: MEASURE, returnByValue: true }, sessionId);
  if (r.exceptionDetails) throw new Error('evaluate: ' + r.exceptionDetails.text);
  const m = r.result.value;
  const bad = m.tables.filter((t) => t.scroll > t.box + 1 || t.cut.length);
  check(m.tables.length > 0, `${name} ${what}: ${m.tables.length} tables laid out`);
  const widest = m.tables.reduce((a, t) => (t.width > a.width ? t : a), { width: 0, box: 0 });
  check(bad.length === 0, `${name} ${what}: every table fits its box (widest ${widest.width} px in ${widest.box} px)` +
    bad.map((t) => `; ${t.where}: ${t.scroll} px in ${t.box} px, cut: ${t.cut.join(' | ') || 'none'}`).join(''));
  check(m.docScroll <= m.docWidth + 1, `${name} ${what}: the page does not scroll sideways (${m.docScroll} px in ${m.docWidth} px)${m.wide.length ? ': ' + m.wide.join(', ') : ''}`);
}

async function openPage(file) {
  const name = path.basename(file, '.html');
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  await send('Page.enable', {}, sessionId);
  await send('Emulation.setDeviceMetricsOverride', { width: 1280, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
  const loaded = new Promise((resolve, reject) => {
    const timer = setTimeout(() => { listeners.delete(l); reject(new Error('timed out waiting for load')); }, 30000);
    const l = (m) => { if (m.sessionId === sessionId && m.method === 'Page.loadEventFired') { clearTimeout(timer); listeners.delete(l); resolve(); } };
    listeners.add(l);
  });
  await send('Page.navigate', { url: 'file://' + path.resolve(file) }, sessionId);
  await loaded;
  await measure(sessionId, 'at 1280 px', name);
  const { data } = await send('Page.captureScreenshot', { format: 'png' }, sessionId);
  fs.writeFileSync(path.join(outdir, `${name}-1280.png`), Buffer.from(data, 'base64'));
  await send('Emulation.setEmulatedMedia', { media: 'print' }, sessionId);
  await send('Emulation.setDeviceMetricsOverride', { width: PRINT_WIDTH, height: 1000, deviceScaleFactor: 1, mobile: false }, sessionId);
  await measure(sessionId, `in print (${PRINT_WIDTH} px)`, name);
  await send('Target.closeTarget', { targetId });
}

(async () => {
  try {
    for (const file of pages) await openPage(file);
  } catch (e) {
    check(false, 'chromium session: ' + e.message + (stderr ? '\n' + stderr.slice(-2000) : ''));
  }
  try { await send('Browser.close'); } catch (e) { /* gone already */ }
  setTimeout(() => browser.kill('SIGKILL'), 5000).unref();
  browser.on('exit', () => { fs.rmSync(profile, { recursive: true, force: true }); });
  console.log(`${fails} failed`);
  process.exitCode = fails ? 1 : 0;
})();
