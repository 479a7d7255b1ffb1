// The book as a reader sees it, in a real browser: Debian's Chromium, headless,
// driven through the DevTools protocol with Node's own WebSocket (nothing is
// downloaded). Run by `cargo xtask docs` (xtask/src/book.rs) against the built
// book served on 127.0.0.1; prints one JSON line of what it saw and exits 1
// when a check fails.
//
// node check_book.mjs CHROMIUM BASE_URL SCREENSHOT CHAPTERS PAGE...
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [chromium, base, screenshot, chaptersText, ...pages] = process.argv.slice(2);
const expectedChapters = Number(chaptersText);
const deadline = Date.now() + 60_000;
let currentPage = '';
const profile = mkdtempSync(join(tmpdir(), 'vidplat-book-'));

// Flags for a machine whose network is closed: no background connections, no GPU.
const browser = spawn(chromium, [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-dev-shm-usage', `--user-data-dir=${profile}`, '--remote-debugging-port=0',
  '--window-size=1280,900', 'about:blank',
], { stdio: ['ignore', 'ignore', 'pipe'] });

// The DevTools connection, once made: `close` asks the browser through it to end.
let socket = null;
const ended = new Promise(resolve => browser.once('exit', resolve));
const within = ms => new Promise(resolve => setTimeout(resolve, ms));

// The browser gone, its profile folder with it. Asked to close, the browser
// ends the processes it started and then itself; killed at once, those
// processes went on writing after it was removed, and every run left the
// profile's folder and one of Chromium's own in the temporary directory (the
// test `a_check_leaves_nothing_in_the_temporary_directory` in book.rs).
// Killed only if it has not ended within 5 s.
async function close() {
  if (socket?.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify({ id: 0, method: 'Browser.close' }));
    await Promise.race([ended, within(5_000)]);
  }
  if (browser.exitCode === null && browser.signalCode === null) {
    browser.kill('SIGKILL');
    await Promise.race([ended, within(1_000)]);
  }
  try {
    rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
  } catch {
    // A folder left in the temporary directory is no failure of the book.
  }
}

async function fail(message) {
  console.log(JSON.stringify({ ok: false, problem: message, at: currentPage }));
  await close();
  process.exit(1);
}
setTimeout(() => fail('the check did not end within two minutes'), 120_000).unref();

const endpoint = await new Promise((resolve, reject) => {
  let seen = '';
  browser.stderr.on('data', chunk => {
    seen += chunk;
    const found = seen.match(/DevTools listening on (ws:\/\/\S+)/);
    if (found) resolve(found[1]);
  });
  browser.on('exit', code => reject(new Error(`chromium exited (${code}) before listening: ${seen.slice(-500)}`)));
}).catch(error => fail(String(error)));

socket = new WebSocket(endpoint);
await new Promise((resolve, reject) => {
  socket.onopen = resolve;
  socket.onerror = () => reject(new Error('no connection to the browser'));
}).catch(error => fail(String(error)));

let nextId = 1;
const pending = new Map();
const listeners = [];
socket.onmessage = event => {
  const message = JSON.parse(event.data);
  if (message.id && pending.has(message.id)) {
    const { resolve, reject } = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) reject(new Error(`${message.error.message}`));
    else resolve(message.result);
  } else if (message.method) {
    for (const listener of listeners) listener(message);
  }
};
function send(method, params = {}, sessionId) {
  const id = nextId++;
  socket.send(JSON.stringify({ id, method, params, sessionId }));
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
const page = (method, params) => send(method, params, sessionId);

// Every error the pages report: console.error, uncaught exceptions, failed loads.
const errors = [];
listeners.push(message => {
  if (message.sessionId !== sessionId) return;
  if (message.method === 'Runtime.consoleAPICalled' && message.params.type === 'error') {
    errors.push(`${currentPage}: console.error ${message.params.args.map(a => a.value ?? a.description).join(' ')}`);
  } else if (message.method === 'Runtime.exceptionThrown') {
    const details = message.params.exceptionDetails;
    errors.push(`${currentPage}: ${details.exception?.description ?? details.text}`);
  } else if (message.method === 'Log.entryAdded' && message.params.entry.level === 'error'
    // The browser asks for /favicon.ico of its own accord; the pages name their icons.
    && !(message.params.entry.url ?? '').endsWith('/favicon.ico')) {
    errors.push(`${currentPage}: ${message.params.entry.text} ${message.params.entry.url ?? ''}`);
  }
});
await page('Runtime.enable');
await page('Log.enable');
await page('Page.enable');

async function open(path) {
  currentPage = path;
  process.stderr.write(`opening ${path}\n`);
  const loaded = new Promise(resolve => listeners.push(message => {
    if (message.sessionId === sessionId && message.method === 'Page.loadEventFired') resolve();
  }));
  await page('Page.navigate', { url: base + path });
  await loaded;
}
async function evaluate(expression) {
  const { result } = await page('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
  return result.value;
}
async function until(expression, what) {
  while (Date.now() < deadline) {
    const value = await evaluate(expression);
    if (value) return value;
    await new Promise(resolve => setTimeout(resolve, 100));
  }
  const state = await evaluate("JSON.stringify({search: typeof window.search, lunr: typeof window.elasticlunr, bar: document.getElementById('mdbook-searchbar')?.value ?? document.getElementById('searchbar')?.value, results: (document.getElementById('mdbook-searchresults') ?? document.getElementById('searchresults'))?.outerHTML?.slice(0, 300)})");
  await fail(`waited in vain for ${what}: ${state}`);
}

for (const path of pages) {
  await open(path);
}
await open('index.html');
const title = await evaluate('document.title');
const chapters = await until("document.querySelectorAll('#mdbook-sidebar li.chapter-item > span.chapter-link-wrapper > a').length", 'the sidebar');
const { data } = await page('Page.captureScreenshot', { format: 'png' });
writeFileSync(screenshot, Buffer.from(data, 'base64'));
await open('index.html?search=signed%20URL');
const hits = await until("document.querySelectorAll('#mdbook-searchresults > li').length", 'search results for "signed URL"');
const firstHit = await evaluate("document.querySelector('#mdbook-searchresults > li a')?.getAttribute('href') ?? ''");

await close();
const problems = [];
if (!title.endsWith('vidplat')) problems.push(`title "${title}"`);
if (chapters !== expectedChapters) problems.push(`the sidebar lists ${chapters} chapters, SUMMARY.md ${expectedChapters}`);
if (hits < 1) problems.push('no search hit for "signed URL"');
problems.push(...errors);
console.log(JSON.stringify({ ok: problems.length === 0, title, chapters, pages: pages.length, search_hits: hits, first_hit: firstHit, problems }));
process.exit(problems.length === 0 ? 0 : 1);
