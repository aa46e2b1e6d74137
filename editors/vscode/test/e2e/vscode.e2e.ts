// The extension inside a real VS Code: code-server with the freshly
// packaged .vsix, a copy of the fixture workspace, the real context-ls
// binary, driven through the web UI by headless Chromium. Every check looks
// at what a person would see: the status bar, hovers, editors, peek views,
// pickers, notifications and the clipboard.
//
// Needs code-server (scripts/install-code-server.sh, run by `make deps`),
// Debian's chromium and the binary (CONTEXT_LS_BIN, default bin/context-ls).
// CONTEXT_LS_E2E_VSIX tests a given .vsix instead of packaging this tree.
// Screenshots of failed checks go to test-results/e2e/ beside package.json;
// CONTEXT_LS_E2E_SCREENSHOTS=DIR also keeps the README's screenshots there
// (vscode.png: the results view, vscode-pack.png: the pack preview and pins).

import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Browser } from 'playwright-core';
import {
  BASE_SETTINGS,
  CHROMIUM,
  CodeServer,
  codeServerDir,
  commandLinesOf,
  copyDir,
  launchBrowser,
  tearDown,
  Workbench,
  writeUserSettings,
} from './harness';

const EXT_ROOT = path.resolve(__dirname, '..', '..', '..');
const REPO = path.resolve(EXT_ROOT, '..', '..');
const BIN = process.env.CONTEXT_LS_BIN ? path.resolve(process.env.CONTEXT_LS_BIN) : path.join(REPO, 'bin', 'context-ls');
const FIXTURE = path.join(EXT_ROOT, 'test', 'fixture', 'workspace');
const ARTIFACTS = path.join(EXT_ROOT, 'test-results', 'e2e');

/** Files the status bar counts: the fixture's plus the generated ones. */
const GENERATED = 300;
const FIXTURE_FILES = 11;
const FILES = FIXTURE_FILES + GENERATED;

/**
 * Adds generated Go files to the workspace, so that indexing lasts long
 * enough for the status bar to show it (and for a doubled progress entry
 * to be seen).
 */
function generate(root: string): void {
  for (let i = 0; i < GENERATED; i++) {
    const pkg = `gen${String(Math.floor(i / 20)).padStart(2, '0')}`;
    const dir = path.join(root, 'gen', pkg);
    fs.mkdirSync(dir, { recursive: true });
    const fns = [0, 1, 2, 3].map((j) => `// Value${i}x${j} is a generated constant.\nfunc Value${i}x${j}() int { return ${i * 10 + j} }\n`).join('\n');
    fs.writeFileSync(path.join(dir, `file${i}.go`), `package ${pkg}\n\n${fns}`);
  }
}

/** The 1-based line and column of the first occurrence of needle in a workspace file. */
function at(rel: string, needle: string): [number, number] {
  const lines = fs.readFileSync(path.join(FIXTURE, rel), 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const c = lines[i].indexOf(needle);
    if (c >= 0) {
      return [i + 1, c + 1];
    }
  }
  throw new Error(`${needle} is not in ${rel}`);
}

/** Polls f until it returns a value (not undefined), for at most ms. */
async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await f();
      if (v !== undefined) {
        return v;
      }
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}${last === undefined ? '' : `: ${String(last)}`}`);
}

/** Saves a screenshot for the README when CONTEXT_LS_E2E_SCREENSHOTS names a directory. */
async function keepScreenshot(wb: Workbench, name: string): Promise<void> {
  const dir = process.env.CONTEXT_LS_E2E_SCREENSHOTS;
  if (dir !== undefined && dir !== '') {
    await wb.screenshot(path.resolve(dir, name));
  }
}

/** The number before " / BUDGET tokens" in a text ("481 / 4,000 tokens" → 481). */
function tokensUsed(text: string): number {
  const m = /([\d,]+) \/ [\d,]+ tokens/.exec(text);
  assert.ok(m !== null, `no total in ${JSON.stringify(text)}`);
  return Number(m[1].replace(/,/g, ''));
}

/** A file name safe for a test title. */
function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 80);
}

describe('the extension in a real VS Code (code-server + Chromium)', function () {
  this.timeout(120_000);
  let tmp = '';
  let ws = '';
  let userData = '';
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let wb: Workbench;
  const damaged: string[] = []; // tests that left fixture files edited

  before(async function () {
    this.timeout(300_000);
    const dir = codeServerDir();
    assert.ok(fs.existsSync(path.join(dir, 'out', 'node', 'entry.js')), `code-server is not installed at ${dir}: run scripts/install-code-server.sh (make deps-editors)`);
    assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: run scripts/install-code-server.sh (make deps-editors)`);
    assert.ok(fs.existsSync(BIN), `${BIN} is missing: run make build (or set CONTEXT_LS_BIN)`);
    fs.rmSync(ARTIFACTS, { recursive: true, force: true });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'context-ls-e2e-'));
    ws = path.join(tmp, 'shop');
    copyDir(FIXTURE, ws);
    generate(ws);
    userData = path.join(tmp, 'user-data');
    const extensions = path.join(tmp, 'extensions');
    let vsix = process.env.CONTEXT_LS_E2E_VSIX ?? '';
    if (vsix === '') {
      vsix = path.join(tmp, 'context-ls.vsix');
      execFileSync('npx', ['--no-install', '@vscode/vsce', 'package', '--skip-license', '--out', vsix], { cwd: EXT_ROOT, stdio: 'pipe' });
    }
    CodeServer.installExtension(dir, path.resolve(vsix), userData, extensions);
    writeUserSettings(userData, {
      ...BASE_SETTINGS,
      'contextLs.serverPath': BIN,
      'contextLs.dbPath': path.join(tmp, 'db'),
      'contextLs.embeddings': false,
    });
    server = await CodeServer.start(dir, userData, extensions, path.join(ARTIFACTS, 'code-server.log'));
    browser = await launchBrowser();
    wb = await Workbench.open(browser, server.url, ws);
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && wb !== undefined) {
      await wb.screenshot(path.join(ARTIFACTS, `${slug(this.currentTest.title)}.png`)).catch(() => undefined);
    }
    // No test edits a fixture file: one left with unsaved changes means a
    // key reached an editor it was not meant for, and every later answer
    // about that file would be about the damaged text. It is put back and
    // named with the test that left it; the suite fails in after().
    if (wb !== undefined) {
      const dirty = (await wb.dirtyTabs().catch(() => [] as string[])).filter((t) => !t.startsWith('Untitled'));
      if (dirty.length > 0) {
        await wb.screenshot(path.join(ARTIFACTS, `${slug(this.currentTest?.title ?? '')}-dirty.png`)).catch(() => undefined);
        damaged.push(`${this.currentTest?.title}: ${dirty.join(', ')}`);
        await wb.revertDirty();
      }
    }
  });

  after(async function () {
    this.timeout(60_000);
    if (wb !== undefined) {
      fs.writeFileSync(path.join(ARTIFACTS, 'status-log.json'), JSON.stringify(await wb.statusLog().catch(() => []), null, 1));
      fs.writeFileSync(path.join(ARTIFACTS, 'notifications.json'), JSON.stringify(await wb.notificationLog().catch(() => []), null, 1));
    }
    if (userData !== '' && (this.test?.parent?.tests ?? []).some((t) => t.state === 'failed')) {
      // The extension host's and the extension's logs, for whoever reads the failure.
      fs.cpSync(path.join(userData, 'logs'), path.join(ARTIFACTS, 'logs'), { recursive: true });
    }
    await tearDown(browser, server, tmp);
    assert.deepStrictEqual(damaged, [], 'tests left fixture files with unsaved changes');
  });

  it('starts `context-ls serve` and shows indexing, then the file count, in the status bar', async function () {
    await wb.status().filter({ hasText: /\d+ files · embeddings off/ }).waitFor({ timeout: 60_000 });
    assert.strictEqual(((await wb.status().textContent()) ?? '').trim(), `${FILES} files · embeddings off`);
    assert.deepStrictEqual(
      commandLinesOf(server!.pgid, BIN).map((argv) => argv.slice(1)),
      [['serve']],
      'the extension starts exactly `context-ls serve` (no flag left to the language client)',
    );
    const log = await wb.statusLog();
    const counts = log.map((e) => e.text).filter((t) => /\d+ files ·/.test(t));
    assert.ok(
      counts.every((t) => t.endsWith(`${FILES} files · embeddings off`)),
      `the status bar showed a partial count: ${JSON.stringify(counts)}`,
    );
    assert.ok(
      log.some((e) => /Indexing shop/.test(e.text)),
      `indexing progress was never shown: ${JSON.stringify(log.map((e) => e.text))}`,
    );
    const doubled = log.filter((e) => (e.all.match(/Indexing shop/g) ?? []).length > 1);
    assert.deepStrictEqual(doubled, [], 'indexing progress shown twice in the status bar');
  });

  it('hover shows the definition with its related section', async function () {
    await wb.openFile('inventory/stock.go');
    await wb.gotoLine(...at('inventory/stock.go', 'Reserve(item'));
    await wb.runCommand('Show or Focus Hover');
    const hover = wb.page.locator('.monaco-hover:not(.hidden)').filter({ hasText: 'Related' });
    await hover.waitFor();
    const text = (await hover.textContent()) ?? '';
    assert.match(text, /func \(s \*Stock\) Reserve\(item string, n int\) error/);
    assert.match(text, /Defined in inventory\/stock\.go:25/);
    assert.match(text, /Related.*caller/s);
    await wb.page.keyboard.press('Escape');
  });

  it('go to definition jumps across files', async function () {
    await wb.openFile('cmd/shop/main.go');
    await wb.gotoLine(...at('cmd/shop/main.go', 'Reserve("apple"'));
    await wb.page.keyboard.press('F12');
    await wb.activeTab('stock.go').waitFor();
    await wb.cursorAt(25);
  });

  it('Copy Context for Selection puts a pack on the clipboard and says how big it is', async function () {
    await wb.openFile('inventory/stock.go');
    await wb.gotoLine(...at('inventory/stock.go', 'Reserve(item'));
    await wb.clearNotifications();
    await wb.runCommand('Context: Copy Context for Selection');
    const note = wb.notification(/^Context copied: [\d,]+ \/ 4,000 tokens, \d+ snippets?\.$/);
    await note.waitFor();
    const clip = await wb.clipboard();
    assert.match(clip, /func \(s \*Stock\) Reserve\(item string, n int\) error \{/);
    assert.match(clip, /inventory\/stock\.go/);
  });

  it('Search Codebase finds code as you type and jumps to it', async function () {
    await wb.runCommand('Context: Search Codebase');
    await wb.quickInput().locator('input').fill('retry a failed upload with backoff');
    const row = wb.quickRows().filter({ hasText: 'retry_upload' });
    await row.first().waitFor();
    assert.match((await wb.quickRows().first().textContent()) ?? '', /retry_upload.*retry\/backoff\.py:6/);
    await wb.quickEnter();
    await wb.activeTab('backoff.py').waitFor();
    await wb.cursorAt(6);
  });

  it('Search Codebase filters by language, kind and path, and says when nothing matched', async function () {
    await wb.runCommand('Context: Search Codebase');
    const input = wb.quickInput().locator('input');
    await input.fill('reserve stock kind:method path:inventory/**');
    await wb.quickInput().locator('.quick-input-title', { hasText: 'Search Codebase (kind: method · path: inventory/**)' }).waitFor();
    await wb.quickRows().filter({ hasText: 'Stock.Reserve' }).first().waitFor();
    const labels = await wb.quickRows().evaluateAll((rows) => rows.map((r) => (r.querySelector('.label-name')?.textContent ?? '').trim()));
    assert.ok(labels.length > 0 && labels.every((l) => /^Stock\.\w+$/.test(l.trim())), `only methods: ${JSON.stringify(labels)}`);
    await input.fill('reserve lang:python');
    await wb.quickRows().filter({ hasText: 'No results for “reserve” with lang: python.' }).waitFor();
    assert.strictEqual(await wb.quickRows().count(), 1);
    await wb.page.keyboard.press('Escape');
  });

  it('Find Callers and Find Tests open the peek view on the call sites and tests', async function () {
    await wb.openFile('inventory/stock.go');
    await wb.gotoLine(...at('inventory/stock.go', 'Reserve(item'));
    await wb.runCommand('Context: Find Callers');
    const peek = wb.page.locator('.zone-widget .peekview-widget');
    await peek.waitFor();
    const tree = peek.locator('.ref-tree');
    await tree.filter({ hasText: 'main.go' }).waitFor();
    await tree.filter({ hasText: 'stock_test.go' }).waitFor();
    await wb.page.keyboard.press('Escape');
    await peek.waitFor({ state: 'detached' });

    await wb.runCommand('Context: Find Tests');
    await peek.waitFor();
    // One location: the peek names its file in the title and lists the test.
    await peek.locator('.peekview-title').filter({ hasText: 'stock_test.go' }).waitFor();
    await peek.locator('.ref-tree').filter({ hasText: 'func TestReserve' }).waitFor();
    assert.doesNotMatch((await peek.locator('.ref-tree').textContent()) ?? '', /main\.go|func main/);
    await wb.page.keyboard.press('Escape');
  });

  it('Peek References lists what the graph resolves, in Go, Python and TypeScript', async function () {
    // Python through a package's re-export, TypeScript through a renamed
    // re-export and a #private method. The peek counts the declaration
    // (VS Code asks for it) and groups the references by file.
    for (const [rel, needle, shown, count] of [
      ['inventory/stock.go', 'Reserve(item', 'main.go', 4],
      ['retry/backoff.py', 'retry_upload(upload', 'sync.py', 2],
      ['web/queue.ts', 'push(task', 'queue.test.ts', 2],
      ['web/queue.ts', '#drain(): void', 'this.#drain()', 2], // one file: the peek lists the lines
    ] as const) {
      await wb.openFile(rel);
      await wb.gotoLine(...at(rel, needle));
      const peek = wb.page.locator('.zone-widget .peekview-widget');
      // Waiting for the peek widget before its title timed out on the title
      // in three full runs in a row (the server's answer was complete: the
      // title read 4 s later said so); the title is waited for alone, and a
      // peek still without it after 10 s is closed and asked for again, at
      // most three times.
      for (let attempt = 1; ; attempt++) {
        await wb.runCommand('Peek References');
        try {
          await peek.locator('.peekview-title').filter({ hasText: `References (${count})` }).waitFor({ timeout: 10_000 });
          break;
        } catch (err) {
          if (attempt === 3) {
            throw err;
          }
          console.log(`      (Peek References on ${rel}: no visible title after 10 s, attempt ${attempt}; asked again)`);
          await wb.page.keyboard.press('Escape');
        }
      }
      await peek.locator('.ref-tree').filter({ hasText: shown }).waitFor();
      await wb.page.keyboard.press('Escape');
      await peek.waitFor({ state: 'detached' });
    }
  });

  it('Explore Definition fills the results view, which stays and opens what is clicked', async function () {
    await wb.openFile('inventory/stock.go');
    await wb.gotoLine(...at('inventory/stock.go', 'Reserve(item'));
    await wb.runCommand('Context: Explore Definition');
    // The panel's other views make room, as a person would have them do.
    await wb.setViewExpanded('Context Pack', false);
    await wb.setViewExpanded('Pins', false);
    const rows = wb.viewRows('Results');
    for (const group of ['Definitions', 'Callers', 'Callees', 'Tests', 'Related']) {
      await rows.filter({ hasText: group }).first().waitFor();
    }
    await rows.filter({ hasText: /Stock\.Reserve.*method · inventory\/stock\.go:25/ }).first().waitFor();
    await rows.filter({ hasText: /main.*exact · .* · cmd\/shop\/main\.go:14/ }).first().waitFor();
    await rows.filter({ hasText: /^Related/ }).first().waitFor();
    assert.match((await rows.allTextContents()).join('\n'), /score \d\.\d\d/);
    await keepScreenshot(wb, 'vscode.png');
    await rows.filter({ hasText: /^TestReserve/ }).first().click();
    await wb.activeTab('stock_test.go').waitFor();
    await rows.filter({ hasText: 'Callers' }).first().waitFor(); // still there
  });

  it('Preview Context for Selection lists the pack; Drop leaves an item out and the total follows; Copy copies it', async function () {
    await wb.openFile('inventory/stock.go');
    await wb.gotoLine(...at('inventory/stock.go', 'Reserve(item'));
    await wb.runCommand('Context: Preview Context for Selection');
    const view = wb.view('Context Pack');
    const rows = wb.viewRows('Context Pack');
    const header = rows.filter({ hasText: /^[\d,]+ \/ 4,000 tokens/ });
    await header.waitFor();
    const selection = rows.filter({ hasText: /^inventory\/stock\.go:25-31Stock\.Reserve · the selection · always · \d+ tokens$/ });
    await selection.waitFor();
    const caller = rows.filter({ hasText: /^cmd\/shop\/main\.go:10-15main · caller of Stock\.Reserve · \d+ tokens$/ });
    await caller.waitFor();
    const description = view.locator('.pane-header .description');
    assert.match((await description.textContent()) ?? '', /^Stock\.Reserve · [\d,]+ \/ 4,000 tokens$/);
    const headerText = (await header.textContent()) ?? '';
    assert.doesNotMatch(headerText, /left out for the budget/, 'every candidate fits: dropping one frees its tokens');
    const before = tokensUsed(headerText);
    const callerTokens = Number(/· (\d+) tokens$/.exec((await caller.textContent()) ?? '')![1]);

    await wb.rowAction(caller, 'Drop');
    await caller.waitFor({ state: 'detached' });
    await rows.filter({ hasText: /1 dropped by you/ }).waitFor();
    await rows.filter({ hasText: /^cmd\/shop\/main\.go:10-15dropped by you$/ }).waitFor();
    const after = tokensUsed((await rows.filter({ hasText: / \/ 4,000 tokens/ }).first().textContent()) ?? '');
    assert.ok(after <= before - callerTokens, `the total follows: ${before} - ${callerTokens} → ${after}`);
    assert.match((await description.textContent()) ?? '', new RegExp(`^Stock\\.Reserve · ${after} / 4,000 tokens$`));

    await wb.clearNotifications();
    await wb.viewAction('Context Pack', 'Copy Pack');
    await wb.notification(new RegExp(`^Context copied: ${after} / 4,000 tokens, \\d+ snippets\\.$`)).waitFor();
    const clip = await wb.clipboard();
    assert.match(clip, /func \(s \*Stock\) Reserve\(item string, n int\) error \{/);
    assert.doesNotMatch(clip, /cmd\/shop\/main\.go/, 'the dropped caller is not in the copied pack');
  });

  it('Pin on a pack item shows it in the Pins view, marked pinned in the pack; Unpin there removes it', async function () {
    await wb.setViewExpanded('Pins', true);
    const rows = wb.viewRows('Context Pack');
    const stock = rows.filter({ hasText: /^inventory\/stock\.go:9-12Stock · definition of Stock · \d+ tokens$/ });
    await wb.clearNotifications();
    await wb.rowAction(stock, 'Pin');
    await wb.notification(/^context-ls: Pinned\. 1 pin now adds \d+ tokens? to every context pack\.$/).waitFor();
    const pins = wb.viewRows('Pins');
    const pin = pins.filter({ hasText: /^inventory\/stock\.go:9-12\d+ tokens$/ });
    await pin.waitFor();
    assert.strictEqual(await pins.count(), 1);
    await rows.filter({ hasText: /^inventory\/stock\.go:9-12Stock · pinned · \d+ tokens$/ }).waitFor();
    assert.match((await wb.view('Pins').locator('.pane-header .description').textContent()) ?? '', /^1 pin · \d+ tokens in every pack$/);
    if (process.env.CONTEXT_LS_E2E_SCREENSHOTS) {
      // The README's picture: the pack and the pins, wide enough to read, without the results.
      await wb.clearNotifications();
      await wb.setViewExpanded('Results', false);
      await wb.moveViewTop('Pins', 300);
      await wb.widenSideBar(620);
      await keepScreenshot(wb, 'vscode-pack.png');
      await wb.widenSideBar(300);
    }

    await wb.rowAction(pin, 'Unpin');
    await pin.waitFor({ state: 'detached' });
    await wb.view('Pins').locator('.welcome-view-content', { hasText: 'Nothing is pinned.' }).waitFor();
    await rows.filter({ hasText: /^inventory\/stock\.go:9-12Stock · definition of Stock · \d+ tokens$/ }).waitFor();
  });

  it('Preview Context for Query… with another budget, inserted at the cursor of the editor it came from', async function () {
    await wb.runCommand('File: New Untitled Text File');
    await wb.activeTab('Untitled-1').waitFor();
    await wb.runCommand('Context: Preview Context for Query…');
    await wb.quickInput().locator('input').fill('retry a failed upload with backoff');
    await wb.quickEnter();
    const description = wb.view('Context Pack').locator('.pane-header .description');
    await description.filter({ hasText: /^“retry a failed upload with backoff” · [\d,]+ \/ 4,000 tokens$/ }).waitFor();
    await wb.viewRows('Context Pack').filter({ hasText: /^retry\/backoff\.py:\d+-\d+retry_upload · / }).first().waitFor();

    await wb.viewAction('Context Pack', 'Change Pack Budget…');
    await wb.quickInput().locator('.quick-input-title', { hasText: 'Context Pack Budget' }).waitFor();
    const input = wb.quickInput().locator('input');
    assert.strictEqual(await input.inputValue(), '4000');
    await input.fill('300');
    await wb.quickEnter();
    await description.filter({ hasText: / \/ 300 tokens$/ }).waitFor();
    const used = tokensUsed((await description.textContent()) ?? '');
    assert.ok(used <= 300, `${used} tokens of 300`);

    await wb.clearNotifications();
    await wb.viewAction('Context Pack', 'Insert Pack at Cursor');
    await wb.notification(new RegExp(`^Context inserted: ${used} / 300 tokens, \\d+ snippets?\\.$`)).waitFor();
    // An untitled editor's tab is named after its first line once it has text.
    const untitled = wb.page.locator('.tabs-container .tab.active', { hasText: 'Untitled-1' });
    await untitled.filter({ hasText: 'retry/backoff.py' }).waitFor();
    const text = ((await wb.page.locator('.editor-instance .view-lines').textContent()) ?? '').replace(/\u00a0/g, ' ');
    assert.match(text, /def retry_upload/);
    await wb.runCommand('View: Revert and Close Editor');
    await untitled.waitFor({ state: 'detached' });
  });

  it('Show Index Stats renders the statistics, not Markdown source', async function () {
    await wb.runCommand('Context: Show Index Stats');
    await wb.activeTab('Preview index-stats.md').waitFor();
    const rendered = await until('the rendered stats table', async () => {
      for (const frame of wb.page.frames()) {
        const text = await frame.evaluate(() => (document.querySelector('table') ? document.body.innerText : '')).catch(() => '');
        if (text.includes('definitions')) {
          return text;
        }
      }
      return undefined;
    });
    assert.match(rendered, new RegExp(`files\\s+${FILES}`));
    assert.doesNotMatch(rendered, /\|---\|/);
  });

  it('Pin and Unpin speak plainly', async function () {
    await wb.openFile('inventory/stock.go');
    await wb.gotoLine(...at('inventory/stock.go', 'Reserve(item'));
    await wb.clearNotifications();
    await wb.runCommand('Context: Pin');
    await wb.notification(/^context-ls: Pinned\. 1 pin now adds [\d,]+ tokens? to every context pack\.$/).waitFor();
    await wb.runCommand('Context: Unpin');
    await wb.notification('context-ls: Unpinned. Nothing is pinned now.').waitFor();
    await wb.runCommand('Context: Unpin');
    await wb.notification(/^context-ls: inventory\/stock\.go(:\d+-\d+)? is not pinned, so there is nothing to unpin\.$/).waitFor();
  });

  it('Reindex Workspace asks, then says once when it is done', async function () {
    await wb.clearNotifications();
    await wb.runCommand('Context: Reindex Workspace');
    const dialog = wb.page.locator('.monaco-dialog-box');
    await dialog.filter({ hasText: `Re-index ${FILES} files in 1 folder?` }).waitFor();
    await dialog.locator('.monaco-button', { hasText: 'Re-index' }).click();
    // A job this small may end before its answer: then only its end is told.
    await wb.notification(new RegExp(`^context-ls: re-index (of shop )?done: ${FILES} files re-indexed, 0 removed, 0 failed\\.$`)).waitFor();
    await wb.status().filter({ hasText: `${FILES} files · embeddings off` }).waitFor();
    const said = (await wb.notificationLog()).filter((n) => /re-?index/i.test(n));
    assert.ok(said.every((n) => !/reindex-\d/.test(n)), `job ids are not for people: ${JSON.stringify(said)}`);
  });

  it('Set Up for Agents shows the MCP registration and copies it', async function () {
    await wb.clearNotifications();
    await wb.runCommand('Context: Set Up for Agents');
    const note = wb.notification(/\.mcp\.json/);
    await note.waitFor();
    await note.locator('.monaco-button', { hasText: 'Copy' }).click();
    await wb.notification('context-ls: MCP registration copied.').waitFor();
    assert.deepStrictEqual(JSON.parse(await wb.clipboard()), {
      mcpServers: { 'context-ls': { command: BIN, args: ['mcp', '--root', ws] } },
    });
    const editor = wb.page.locator('.editor-instance .view-lines');
    assert.match(((await editor.textContent()) ?? '').replace(/\u00a0/g, ' '), /"mcpServers"/);
  });

  it('a settings change reaches the server at once', async function () {
    await wb.setSetting('contextLs.budgetTokens', 'Budget Tokens', '300');
    await wb.openFile('inventory/stock.go');
    await wb.gotoLine(...at('inventory/stock.go', 'Reserve(item'));
    await until('the new budget', async () => {
      await wb.clearNotifications();
      await wb.runCommand('Context: Copy Context for Selection');
      const note = wb.notification(/^Context copied: /);
      await note.waitFor();
      const text = (await note.locator('.notification-list-item-message').textContent()) ?? '';
      return / \/ 300 tokens/.test(text) ? text : undefined;
    });
  });

  it('a missing server is said plainly, with the way out', async function () {
    await wb.clearNotifications();
    await wb.setSetting('contextLs.serverPath', 'Server Path', '/nonexistent/context-ls', 'Workspace');
    const changed = wb.notification('context-ls: the server path changed.');
    await changed.waitFor();
    await changed.locator('.monaco-button', { hasText: 'Restart Server' }).click();
    const missing = wb.notification('context-ls: contextLs.serverPath is "/nonexistent/context-ls", but there is no executable file at /nonexistent/context-ls.');
    await missing.waitFor();
    await missing.locator('.monaco-button', { hasText: 'Install Instructions' }).waitFor();
    await missing.locator('.monaco-button', { hasText: 'Open Settings' }).waitFor();
    assert.match((await wb.status().getAttribute('aria-label')) ?? '', /no executable file at \/nonexistent\/context-ls\. Click to try again\./);
    await until('the old server to stop', async () => (commandLinesOf(server!.pgid, BIN).length === 0 ? true : undefined));
  });
});
