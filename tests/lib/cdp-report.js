#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// tests/lib/cdp-report.js: open report pages in real headless Chromium and check them through
// the DevTools protocol, spoken over --remote-debugging-pipe (file descriptors 3 and 4: no port,
// no WebSocket, no npm package). Used by tests/e2e/report_chromium.sh.
//
// usage: node cdp-report.js CHROMIUM OUTDIR KIND:PAGE.html [KIND:PAGE.html ...]
//   KIND is "report" (a normal report), "hostile" (a report of hostile strings: they must show
//   as text and nothing may run) or "csp" (a report with markup injected on purpose, as if
//   escaping had failed: the Content-Security-Policy must stop the script and the request)
//   or "compare" (a comparison page: its data block is id "compare", schema
//   llama-roofline-compare, and counts its inputs instead of models), or "compare-hostile"
//   (a comparison with the hostile bundle among its inputs: checked as both), or "history" (a
//   history page: its data block is id "history", schema llama-roofline-history, and counts
//   its inputs), or "history-hostile" (a history of the hostile bundle: its model names, CPU
//   and build show as text, nothing runs).
// For every page: the load finishes; zero console errors and exceptions (except "csp", where
// the blocked injection is expected to be reported); zero network requests besides the page
// itself; no JavaScript dialog; a light and a dark screenshot (OUTDIR/NAME-light.png and
// -dark.png) that are not blank; every chart figure has an inline <svg> whose <text> elements
// hold text; one <script>, the JSON data block, which parses to a bundle; no <img>, no on*
// attribute. Prints "ok   ..." / "FAIL ..." lines; exits 1 if anything failed.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');

const [chromium, outdir, ...pages] = process.argv.slice(2);
let fails = 0;
const ok = (what) => console.log(`ok   ${what}`);
const fail = (what) => { console.log(`FAIL ${what}`); fails++; };
const check = (cond, what) => (cond ? ok(what) : fail(what));

// ---- a minimal PNG decoder (8-bit RGB/RGBA, not interlaced) for the blank-page check -------
function pngStats(buf) {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let off = 8, w = 0, h = 0, ct = 0, idat = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off), type = buf.toString('ascii', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      w = data.readUInt32BE(0); h = data.readUInt32BE(4); ct = data[9];
      if (data[8] !== 8 || data[12] !== 0) throw new Error('unsupported PNG');
    } else if (type === 'IDAT') idat.push(data);
    off += 12 + len;
  }
  const bpp = ct === 6 ? 4 : ct === 2 ? 3 : 0;
  if (!bpp) throw new Error('unsupported colour type ' + ct);
  const raw = zlib.inflateSync(Buffer.concat(idat)), stride = w * bpp;
  const px = Buffer.alloc(h * stride);
  for (let y = 0; y < h; y++) {
    const f = raw[y * (stride + 1)], src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? px[y * stride + x - bpp] : 0, b = y ? px[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y ? px[(y - 1) * stride + x - bpp] : 0;
      let v = src[x];
      if (f === 1) v += a; else if (f === 2) v += b; else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) { const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      px[y * stride + x] = v & 0xff;
    }
  }
  let sum = 0, sum2 = 0; const colours = new Set();
  for (let i = 0; i < px.length; i += bpp) {
    const l = 0.2126 * px[i] + 0.7152 * px[i + 1] + 0.0722 * px[i + 2];
    sum += l; sum2 += l * l;
    if (colours.size < 10000) colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
  }
  const n = px.length / bpp, mean = sum / n;
  return { w, h, mean, sd: Math.sqrt(Math.max(0, sum2 / n - mean * mean)), colours: colours.size };
}

// ---- the browser, over the pipe -------------------------------------------------------------
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'rl-chromium-'));
const browser = spawn(chromium, [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-default-apps', '--disable-extensions', '--mute-audio', '--hide-scrollbars',
  `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank',
], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
let stderr = '';
browser.stderr.on('data', (d) => { stderr += d; });
const toChrome = browser.stdio[3], fromChrome = browser.stdio[4];
let nextId = 1, pending = new Map(), listeners = [], inbuf = Buffer.alloc(0);
fromChrome.on('data', (chunk) => {
  inbuf = Buffer.concat([inbuf, chunk]);
  let z;
  while ((z = inbuf.indexOf(0)) >= 0) {
    const msg = JSON.parse(inbuf.subarray(0, z).toString('utf8'));
    inbuf = inbuf.subarray(z + 1);
    if (msg.id && pending.has(msg.id)) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      msg.error ? reject(new Error(JSON.stringify(msg.error))) : resolve(msg.result);
    } else for (const l of listeners) l(msg);
  }
});
function send(method, params = {}, sessionId) {
  const id = nextId++;
  toChrome.write(JSON.stringify({ id, method, params, sessionId }) + '\0');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { if (pending.delete(id)) reject(new Error(`${method}: no answer in 60 s`)); }, 60000);
    pending.set(id, { resolve: (v) => { clearTimeout(timer); resolve(v); }, reject: (e) => { clearTimeout(timer); reject(e); } });
  });
}
function waitFor(pred, ms, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { listeners = listeners.filter((x) => x !== l); reject(new Error(`timed out waiting for ${what}`)); }, ms);
    const l = (m) => { if (pred(m)) { clearTimeout(timer); listeners = listeners.filter((x) => x !== l); resolve(m); } };
    listeners.push(l);
  });
}

async function openPage(kind, file) {
  const name = path.basename(file, '.html');
  const t0 = Date.now();
  const url = 'file://' + path.resolve(file);
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  const ev = { console: [], requests: [], dialogs: [], blocked: new Map() };
  const collect = (m) => {
    if (m.sessionId !== sessionId) return;
    const p = m.params || {};
    if (m.method === 'Runtime.consoleAPICalled' && (p.type === 'error' || p.type === 'assert'))
      ev.console.push('console.' + p.type + ': ' + (p.args || []).map((a) => a.value).join(' '));
    else if (m.method === 'Runtime.exceptionThrown') ev.console.push('exception: ' + p.exceptionDetails.text);
    else if (m.method === 'Log.entryAdded' && p.entry.level === 'error') ev.console.push(`log: ${p.entry.source}: ${p.entry.text}`);
    else if (m.method === 'Network.requestWillBeSent' && p.request.url !== url) ev.requests.push([p.requestId, p.request.url]);
    else if (m.method === 'Network.loadingFailed' && p.blockedReason) ev.blocked.set(p.requestId, p.blockedReason);
    else if (m.method === 'Page.javascriptDialogOpening') {
      ev.dialogs.push(p.message);
      send('Page.handleJavaScriptDialog', { accept: true }, sessionId).catch(() => {});
    }
  };
  listeners.push(collect);
  for (const d of ['Page', 'Runtime', 'Log', 'Network']) await send(`${d}.enable`, {}, sessionId);
  await send('Emulation.setDeviceMetricsOverride', { width: 1100, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
  const loaded = waitFor((m) => m.sessionId === sessionId && m.method === 'Page.loadEventFired', 30000, 'load');
  await send('Page.navigate', { url }, sessionId);
  await loaded;
  await new Promise((r) => setTimeout(r, 300)); // late console messages
  const evaluate = async (expr) => {
    const r = await send('Runtime.evaluate', { expression: expr, returnByValue: true }, sessionId);
    if (r.exceptionDetails) throw new Error('evaluate: ' + r.exceptionDetails.text);
    return r.result.value;
  };
  const dom = await evaluate(`(() => {
    const figs = [...document.querySelectorAll('figure.chart')];
    const bundle = document.getElementById('bundle') || document.getElementById('compare') ||
      document.getElementById('history');
    let parsed = null; try { parsed = JSON.parse(bundle.textContent); } catch (e) {}
    const onAttrs = [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length;
    return {
      title: document.title, h1: (document.querySelector('h1') || {}).textContent || '',
      figures: figs.length,
      figuresWithText: figs.filter((f) => { const t = f.querySelectorAll('svg text');
        return t.length > 0 && [...t].every((x) => x.textContent.trim().length > 0); }).length,
      svgTextSample: figs.map((f) => (f.querySelector('svg text') || {}).textContent || ''),
      svgTextIsSvg: figs.every((f) => [...f.querySelectorAll('svg text')].every((x) => x instanceof SVGTextElement)),
      scripts: [...document.querySelectorAll('script')].map((s) => s.type),
      schema: parsed && parsed.schema,
      nModels: parsed && parsed.models ? parsed.models.length : parsed && parsed.inputs ? parsed.inputs.length : -1,
      nPoints: parsed && parsed.client && parsed.client.points ? parsed.client.points.length : -1,
      imgs: document.querySelectorAll('img').length, onAttrs,
      styles: document.querySelectorAll('style').length,
      bodyText: document.body.innerText,
      csp: (document.querySelector('meta[http-equiv="Content-Security-Policy"]') || {}).content || '',
      pwned: typeof window.__pwned !== 'undefined',
    };
  })()`);
  const shot = async (scheme) => {
    await send('Emulation.setEmulatedMedia', { features: [{ name: 'prefers-color-scheme', value: scheme }] }, sessionId);
    const { data } = await send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true,
      clip: { x: 0, y: 0, width: 1100, height: Math.min(6000, await evaluate('document.documentElement.scrollHeight')), scale: 1 } }, sessionId);
    const png = Buffer.from(data, 'base64'), out = path.join(outdir, `${name}-${scheme}.png`);
    fs.writeFileSync(out, png);
    return { out, ...pngStats(png) };
  };
  const light = await shot('light'), dark = await shot('dark');
  listeners = listeners.filter((x) => x !== collect);
  await send('Target.closeTarget', { targetId });
  return { name, kind, dom, ev, light, dark, ms: Date.now() - t0 };
}

(async () => {
  try {
    for (const spec of pages) {
      const i = spec.indexOf(':'), kind = spec.slice(0, i), file = spec.slice(i + 1);
      const r = await openPage(kind, file);
      const n = r.name, d = r.dom;
      console.log(`# ${n}: ${kind}, ${r.ms} ms`);
      if (kind === 'csp') {
        check(r.ev.dialogs.length === 0 && !d.pwned, `${n}: the injected script did not run (CSP)`);
        const sent = r.ev.requests.filter(([id]) => r.ev.blocked.get(id) !== 'csp');
        check(r.ev.requests.length > 0 && sent.length === 0,
          `${n}: the injected image was blocked by CSP before any byte went out (${r.ev.requests.map(([id, u]) => u + ': ' + (r.ev.blocked.get(id) || 'sent')).join(' ')})`);
        check(r.ev.console.some((m) => /Content Security Policy/i.test(m)), `${n}: Chromium reports the CSP violation`);
        continue;
      }
      check(r.ev.console.length === 0, `${n}: zero console errors${r.ev.console.length ? ': ' + r.ev.console.join(' | ') : ''}`);
      check(r.ev.requests.length === 0, `${n}: zero network requests${r.ev.requests.length ? ': ' + r.ev.requests.map((x) => x[1]).join(' ') : ''}`);
      check(r.ev.dialogs.length === 0 && !d.pwned, `${n}: no dialog, no script ran`);
      check(d.scripts.length === 1 && d.scripts[0] === 'application/json', `${n}: one <script>, the JSON data block (${d.scripts.join(',')})`);
      const cmp = kind.startsWith('compare');
      if (kind.startsWith('history'))
        check(d.schema === 'llama-roofline-history' && d.nModels > 1, `${n}: the embedded history parses (${d.nModels} inputs)`);
      else if (!cmp && d.nPoints >= 0) // a client bundle: operating points, no models
        check(d.schema === 'llama-roofline-bundle' && d.nPoints > 0, `${n}: the embedded client bundle parses (${d.nPoints} operating points)`);
      else
        check(d.schema === (cmp ? 'llama-roofline-compare' : 'llama-roofline-bundle') && d.nModels > 0,
          `${n}: the embedded ${cmp ? 'comparison' : 'bundle'} parses (${d.nModels} ${cmp ? 'inputs' : 'models'})`);
      check(d.imgs === 0 && d.onAttrs === 0, `${n}: no <img>, no on* attribute`);
      check(/default-src 'none'/.test(d.csp), `${n}: CSP meta in force`);
      check(d.figures > 0 && d.figuresWithText === d.figures && d.svgTextIsSvg,
        `${n}: ${d.figures} charts, each with SVG <text> (${d.svgTextSample.map((t) => JSON.stringify(t.slice(0, 40))).join(', ')})`);
      check(d.h1.length > 0 && d.title.length > 0, `${n}: headline "${d.h1}"`);
      for (const s of [r.light, r.dark])
        check(s.sd > 8 && s.colours > 16, `${n}: screenshot not blank: ${s.out} (${s.w}x${s.h}, luminance sd ${s.sd.toFixed(1)}, ${s.colours} colours)`);
      check(r.dark.mean < r.light.mean - 50, `${n}: dark theme is dark (mean luminance ${r.light.mean.toFixed(0)} -> ${r.dark.mean.toFixed(0)})`);
      if (kind === 'hostile' || kind === 'compare-hostile') {
        for (const s of ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', ']]>', '</script>', '<!--<script>', '\uFFFD\uFFFDbad\uFFFD'])
          check(d.bodyText.includes(s), `${n}: ${JSON.stringify(s)} shown as text`);
        check(d.styles === 1, `${n}: one <style> (the page's)`);
      }
      if (kind === 'history-hostile') {
        for (const s of ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', '</script><script>alert(1)</script>'])
          check(d.bodyText.includes(s), `${n}: ${JSON.stringify(s)} shown as text`);
        check(d.styles === 1, `${n}: one <style> (the page's)`);
      }
    }
  } catch (e) {
    fail('chromium session: ' + e.message + (stderr ? '\n' + stderr.slice(-2000) : ''));
  }
  try { await send('Browser.close'); } catch (e) { /* gone already */ }
  setTimeout(() => browser.kill('SIGKILL'), 5000).unref();
  browser.on('exit', () => { fs.rmSync(profile, { recursive: true, force: true }); });
  console.log(`${fails} failed`);
  process.exitCode = fails ? 1 : 0;
})();
