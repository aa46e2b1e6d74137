// Drives the real context-ls binary through vscode-jsonrpc the way the
// extension does: the same initializationOptions, workspace/configuration
// answers, progress tracking (StatusModel), argument builders and renderers.
// The binary comes from CONTEXT_LS_BIN (default: bin/context-ls at the
// repository root); without it the suite is skipped with a message.

import * as assert from 'assert';
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { createMessageConnection, MessageConnection, ResponseError, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { EditorState, packArgsForSelection, placeArgs, reindexArgs, searchArgs } from '../src/args';
import { answerConfiguration, ConfigReader, initializationOptions, serverSettings, SettingLayers } from '../src/config';
import {
  Commands,
  PackAnswer,
  GraphResult,
  PinsAnswer,
  ProgressValue,
  ReindexAnswer,
  RelatedResult,
  SearchResult,
  StatsAnswer,
} from '../src/protocol';
import { callEntries, errorMessage, FolderRef, hitEntry, packSummary, pinsSummary, reindexQuestion, relatedEntries, statsMarkdown, testEntries } from '../src/render';
import { dropItem, excludeKey, packArgs, packSubject, packTree, withBudget } from '../src/pack';
import * as vscode from 'vscode';
import { ContextClient, ExtensionCommands } from '../src/commands';
import { FolderPins, pinItemArgs, pinLabel, pinPlace, pinsTree } from '../src/pins';
import { CLEAR_AND_REPIN, PINS_VIEW, PinsView } from '../src/pinsView';
import { StatusModel } from '../src/statusModel';
import { harness } from './stub/vscode';

const REPO = path.resolve(__dirname, '..', '..', '..', '..');
const BIN = process.env.CONTEXT_LS_BIN ? path.resolve(process.env.CONTEXT_LS_BIN) : path.join(REPO, 'bin', 'context-ls');
const FIXTURE = path.resolve(__dirname, '..', '..', 'test', 'fixture', 'workspace');
const WAIT_MS = 30_000;

/** The code the server answers for a command whose engine part is not in the build. */
const METHOD_NOT_FOUND = -32601;
/** The code of malformed arguments: the extension must never cause it. */
const INVALID_PARAMS = -32602;

function reader(layers: Record<string, SettingLayers>): ConfigReader {
  return { inspect: (key) => layers[key] };
}

/** A file URI the way VS Code spells it (percent-encoded path). */
function fileUri(p: string): string {
  return pathToFileURL(p).href;
}

function copyDir(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, e.name);
    const dst = path.join(to, e.name);
    if (e.isDirectory()) {
      copyDir(src, dst);
    } else {
      fs.copyFileSync(src, dst);
    }
  }
}

/** 0-based line and UTF-16 column of the first occurrence of needle in the file. */
function find(file: string, needle: string): { line: number; character: number } {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const c = lines[i].indexOf(needle); // JS string indices are UTF-16 code units, like LSP
    if (c >= 0) {
      return { line: i, character: c };
    }
  }
  throw new Error(`${needle} not in ${file}`);
}

/** The text of a file over an LSP range. */
function textAt(file: string, r: { start: { line: number; character: number }; end: { line: number; character: number } }): string {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  if (r.start.line === r.end.line) {
    return lines[r.start.line].slice(r.start.character, r.end.character);
  }
  const out = [lines[r.start.line].slice(r.start.character)];
  for (let i = r.start.line + 1; i < r.end.line; i++) {
    out.push(lines[i]);
  }
  out.push((lines[r.end.line] ?? '').slice(0, r.end.character));
  return out.join('\n');
}

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = WAIT_MS): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/**
 * Outcome of a command whose engine part may be missing from this build:
 * its result, or the error it answered. InvalidParams fails the test (the
 * extension built a wrong argument); any other error must be a clear
 * message, and "method not found" must say the part is not supported.
 */
async function maybe<T>(conn: MessageConnection, command: string, args: object): Promise<{ result?: T; error?: string }> {
  try {
    return { result: (await conn.sendRequest('workspace/executeCommand', { command, arguments: [args] })) as T };
  } catch (err) {
    assert.ok(err instanceof ResponseError, `${command}: ${String(err)}`);
    assert.notStrictEqual(err.code, INVALID_PARAMS, `${command} rejected the extension's arguments ${JSON.stringify(args)}: ${err.message}`);
    assert.match(err.message, /\S/, `${command}: empty error message`);
    if (err.code === METHOD_NOT_FOUND) {
      assert.match(err.message, /not (supported|in this build)/, `${command}: ${err.message}`);
    }
    const shown = errorMessage(command, err);
    assert.ok(shown.includes(err.message), 'the user sees the server words');
    return { error: err.message };
  }
}

describe('real server through vscode-jsonrpc', function () {
  this.timeout(90_000);
  let proc: ChildProcess | undefined;
  let conn: MessageConnection | undefined;
  let tmp = '';
  let ws = '';
  let stderr = '';
  const messages: { type: number; message: string }[] = [];
  const status = new StatusModel();
  let progressEnds = 0;
  let progressTitles: string[] = [];
  let folders: FolderRef[] = [];
  const settings = {
    embeddings: { defaultValue: true, globalValue: false },
    budgetTokens: { defaultValue: 4000, globalValue: 1500 },
    logLevel: { defaultValue: 'info', globalValue: 'debug' },
    dbPath: { defaultValue: '', globalValue: '' },
    packFormat: { defaultValue: 'markdown', globalValue: 'markdown' },
    serverPath: { defaultValue: '', globalValue: BIN },
  } as Record<string, SettingLayers>;

  before(async function () {
    if (!fs.existsSync(BIN)) {
      console.log(`    skipped: no server binary at ${BIN} (build it with \`go build -o bin/context-ls ./cmd/context-ls\` at the repository root, or set CONTEXT_LS_BIN)`);
      this.skip();
    }
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cls-vscode-'));
    ws = path.join(tmp, 'shop');
    copyDir(FIXTURE, ws);
    settings.dbPath.globalValue = path.join(tmp, 'index');
    folders = [{ uri: fileUri(ws), name: 'shop' }];
    proc = spawn(BIN, ['serve'], { cwd: ws, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env } });
    proc.stderr!.on('data', (d) => {
      stderr += String(d);
    });
    const c = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    conn = c;
    c.onRequest('window/workDoneProgress/create', () => null);
    c.onRequest('workspace/configuration', (params: { items: { section?: string; scopeUri?: string }[] }) =>
      answerConfiguration(params.items, () => reader(settings), () => null),
    );
    c.onNotification('$/progress', (p: { token: string | number; value: ProgressValue }) => {
      if (p.value.kind === 'begin') {
        progressTitles.push(p.value.title);
      }
      if (status.progress(p.token, p.value)) {
        progressEnds++;
      }
    });
    c.onNotification('window/showMessage', (m: { type: number; message: string }) => messages.push(m));
    c.onNotification('window/logMessage', () => undefined);
    c.onRequest('client/registerCapability', () => null);
    c.listen();
    const init = (await c.sendRequest('initialize', {
      processId: process.pid,
      clientInfo: { name: 'Visual Studio Code (test)', version: '1.82.0' },
      rootUri: fileUri(ws),
      workspaceFolders: folders,
      initializationOptions: initializationOptions(reader(settings)),
      capabilities: {
        window: { workDoneProgress: true, showMessage: {} },
        workspace: { configuration: true, workspaceFolders: true, didChangeConfiguration: { dynamicRegistration: true } },
        textDocument: { hover: { contentFormat: ['markdown', 'plaintext'] }, synchronization: { didSave: true } },
      },
    })) as { capabilities: { executeCommandProvider?: { commands: string[] } } };
    const advertised = init.capabilities.executeCommandProvider?.commands ?? [];
    for (const name of Object.values(Commands)) {
      assert.ok(advertised.includes(name), `the server does not advertise ${name}`);
    }
    status.setServer('running');
    await c.sendNotification('initialized', {});
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && stderr !== '') {
      console.log(`    server stderr (last 2000 characters):\n${stderr.slice(-2000)}`);
    }
  });

  after(async function () {
    if (conn !== undefined && proc !== undefined) {
      try {
        await conn.sendRequest('shutdown');
        await conn.sendNotification('exit');
      } catch {
        // the process may already be gone; it is killed below
      }
      const exited = await new Promise<boolean>((resolve) => {
        if (proc!.exitCode !== null) {
          resolve(true);
          return;
        }
        const t = setTimeout(() => resolve(false), 5000);
        proc!.on('exit', () => {
          clearTimeout(t);
          resolve(true);
        });
      });
      conn.dispose();
      if (!exited) {
        proc.kill('SIGKILL');
      }
    }
    if (tmp !== '') {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  const stats = () => conn!.sendRequest('workspace/executeCommand', { command: Commands.stats, arguments: [] }) as Promise<StatsAnswer>;

  it('indexes the workspace, reporting progress the status bar follows', async () => {
    await until('the first index to finish', async () => {
      const s = await stats();
      return s.folders.length === 1 && s.folders[0].indexing.state === 'done';
    });
    await until('indexing progress to end', () => progressEnds > 0 && !status.busy());
    assert.ok(progressTitles.some((t) => /index/i.test(t)), `progress titles: ${progressTitles.join(', ')}`);
    const s = await stats();
    status.setStats(s);
    const f = s.folders[0];
    assert.strictEqual(f.folder.replace(/\/$/, ''), folders[0].uri.replace(/\/$/, ''));
    assert.deepStrictEqual(f.languages, { go: 4, markdown: 1, python: 3, typescript: 3 }, JSON.stringify(f.languages));
    assert.strictEqual(f.files, 11, 'go.mod is not indexed');
    assert.strictEqual(f.embeddings.state, 'off', 'embeddings: false from the settings reached the server');
    const view = status.view();
    assert.strictEqual(view.text, '$(database) 11 files · embeddings off');
    assert.strictEqual(view.command, 'contextLs.showStats');
    const md = statsMarkdown(s, folders);
    assert.match(md, /^## shop$/m);
    assert.match(md, /\| files \| 11 \|/);
  });

  it('searches, and every hit locates its snippet exactly', async () => {
    const args = searchArgs('retry failed uploads with backoff', 10)!;
    const res = (await conn!.sendRequest('workspace/executeCommand', { command: Commands.search, arguments: [args] })) as SearchResult;
    assert.ok(res.hits.length > 0, 'no hits');
    const top = res.hits[0];
    assert.strictEqual(top.path, 'retry/backoff.py', JSON.stringify(res.hits.map((h) => h.path)));
    for (const h of res.hits) {
      const file = path.join(ws, ...h.path.split('/'));
      assert.strictEqual(new URL(h.location.uri).protocol, 'file:');
      assert.strictEqual(fs.realpathSync(new URL(h.location.uri)), fs.realpathSync(file), 'location.uri names the file of path');
      assert.strictEqual(textAt(file, h.location.range), h.text, `${h.path}: text is the file over location`);
    }
    const entry = hitEntry(top, folders);
    const def = find(path.join(ws, 'retry', 'backoff.py'), 'def retry_upload');
    assert.ok(entry.description.startsWith('retry/backoff.py:'), entry.description);
    assert.ok(top.location.range.start.line <= def.line && def.line <= top.location.range.end.line);
  });

  it('finds a file whose name needs percent-encoding', async () => {
    const res = (await conn!.sendRequest('workspace/executeCommand', {
      command: Commands.search,
      arguments: [searchArgs('InvoiceTotal sums invoice lines in cents', 5)],
    })) as SearchResult;
    const hit = res.hits.find((h) => h.path === 'billing/invoice total.go');
    assert.ok(hit !== undefined, JSON.stringify(res.hits.map((h) => h.path)));
    assert.strictEqual(hitEntry(hit, folders).description.split(':')[0], 'billing/invoice total.go');
  });

  it('answers place-based commands for a real file URI with results or a clear error', async () => {
    const file = path.join(ws, 'billing', 'invoice total.go');
    const uri = fileUri(file);
    await conn!.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'go', version: 1, text: fs.readFileSync(file, 'utf8') },
    });
    const at = find(file, 'InvoiceTotal(lines');
    const cursor: EditorState = { uri, anchor: at, active: at };
    const body = find(file, 'total := 0');
    const selection: EditorState = { uri, anchor: body, active: { line: body.line + 4, character: 0 } };

    const hover = (await conn!.sendRequest('textDocument/hover', { textDocument: { uri }, position: at })) as { contents: unknown } | null;
    assert.ok(hover !== null && hover.contents !== undefined, 'hover on a definition');

    const pack = await maybe<PackAnswer>(conn!, Commands.pack, packArgsForSelection(selection, { format: 'markdown' }));
    if (pack.result !== undefined) {
      assert.ok((pack.result.text ?? '').length > 0 && pack.result.tokens <= pack.result.budget);
      assert.strictEqual(pack.result.budget, 1500, 'the budgetTokens setting is the default budget');
      assert.match(packSummary(pack.result), /^Context copied: [\d,]+ \/ 1,500 tokens/);
    }
    const related = await maybe<RelatedResult>(conn!, Commands.related, placeArgs(cursor));
    if (related.result !== undefined) {
      relatedEntries(related.result, folders).forEach((e) => assert.match(e.description, /:\d+$/));
    }
    const callers = await maybe<GraphResult>(conn!, Commands.callers, placeArgs(cursor));
    if (callers.result !== undefined) {
      assert.deepStrictEqual(callers.result.results.map((t) => t.definition.symbol), ['InvoiceTotal']);
      assert.deepStrictEqual(callEntries(callers.result, folders), [], 'nothing calls InvoiceTotal');
    }
    const tests = await maybe<GraphResult>(conn!, Commands.tests, placeArgs(cursor));
    if (tests.result !== undefined) {
      assert.deepStrictEqual(testEntries(tests.result, folders), [], 'no test calls InvoiceTotal');
    }
    const pinned = await maybe<PinsAnswer>(conn!, Commands.pin, placeArgs(selection));
    if (pinned.result !== undefined) {
      assert.ok(pinned.result.pins.length >= 1);
      assert.match(pinsSummary('pin', pinned.result), /^Pinned\. \d+ pins? now add/);
      const unpinned = await maybe<PinsAnswer>(conn!, Commands.unpin, placeArgs(selection));
      assert.ok(unpinned.error === undefined, unpinned.error);
    }
  });

  it('callers and tests of a definition used across files, when the build has the graph', async () => {
    const file = path.join(ws, 'inventory', 'stock.go');
    const uri = fileUri(file);
    const at = find(file, 'Reserve(item');
    const cursor: EditorState = { uri, anchor: at, active: at };
    const callers = await maybe<GraphResult>(conn!, Commands.callers, placeArgs(cursor));
    if (callers.result !== undefined) {
      const where = callEntries(callers.result, folders).map((e) => e.description);
      const call = find(path.join(ws, 'cmd', 'shop', 'main.go'), 'Reserve("apple", 1)');
      assert.ok(where.includes(`cmd/shop/main.go:${call.line + 1}`), JSON.stringify(where));
      const site = callEntries(callers.result, folders).find((e) => e.description.startsWith('cmd/shop/main.go'))!;
      assert.deepStrictEqual(site.location.range.start, call, 'the call site is located in UTF-16 after the emoji line');
    }
    const tests = await maybe<GraphResult>(conn!, Commands.tests, placeArgs(cursor));
    if (tests.result !== undefined) {
      const names = testEntries(tests.result, folders).map((e) => `${e.label} ${e.description}`);
      assert.ok(names.includes('TestReserve inventory/stock_test.go:8'), JSON.stringify(names));
    }
  });

  it('previews a pack, drops an item, pins one and unpins it with the arguments the views build', async () => {
    const file = path.join(ws, 'inventory', 'stock.go');
    const at = find(file, 'Reserve(item');
    // A budget too small for every candidate, so that a dropped item's tokens go to the next one.
    const base = packArgsForSelection({ uri: fileUri(file), anchor: at, active: at }, { format: 'markdown' });
    const req = withBudget({ base, exclude: [] }, 300);
    const first = await maybe<PackAnswer>(conn!, Commands.pack, packArgs(req));
    if (first.result === undefined) {
      return; // no packs in this build: said clearly by maybe
    }
    const res = first.result;
    assert.strictEqual(res.budget, 300);
    assert.ok((res.dropped ?? 0) > 0, `candidates left out for the budget: ${res.dropped}`);
    assert.strictEqual(packSubject(res, req.base), 'Stock.Reserve');
    const caller = res.items.find((it) => it.source === 'caller' && it.path === 'cmd/shop/main.go');
    assert.ok(caller !== undefined, JSON.stringify(res.items.map((it) => `${it.path} ${it.source}`)));
    // The largest item chosen by relevance: its tokens are enough for a candidate left out.
    const victim = res.items
      .filter((it) => it.includeMode === 'agent' && it !== caller)
      .sort((a, b) => b.tokens - a.tokens)[0];
    assert.ok(victim !== undefined, 'an item chosen by relevance to drop');

    const dropped = dropItem(req, victim);
    const after = (await conn!.sendRequest('workspace/executeCommand', { command: Commands.pack, arguments: [packArgs(dropped)] })) as PackAnswer;
    const keys = (p: PackAnswer) => p.items.map(excludeKey);
    assert.ok(!keys(after).includes(excludeKey(victim)), 'the dropped item is gone');
    assert.ok(
      keys(after).some((k) => !keys(res).includes(k)),
      `its tokens went to a candidate left out before: ${JSON.stringify(keys(res))} → ${JSON.stringify(keys(after))}`,
    );
    assert.strictEqual(after.excluded, 1);
    assert.match(packTree(after, dropped)[0].description!, /^\d+ items · (\d+ left out for the budget · )?1 dropped by you$/);

    const pinned = (await conn!.sendRequest('workspace/executeCommand', { command: Commands.pin, arguments: [pinItemArgs(caller)] })) as PinsAnswer;
    const listed = (await conn!.sendRequest('workspace/executeCommand', { command: Commands.pins, arguments: [{ folder: folders[0].uri }] })) as PinsAnswer;
    assert.deepStrictEqual(listed.pins, pinned.pins);
    const f: FolderPins = { folder: folders[0], serverFolder: listed.folder, pins: listed.pins };
    assert.deepStrictEqual(
      pinsTree([f]).map((n) => n.label),
      ['cmd/shop/main.go:10-15'],
      'the pin is the item\'s lines',
    );
    const withPin = (await conn!.sendRequest('workspace/executeCommand', { command: Commands.pack, arguments: [packArgs(withBudget(req, 4000))] })) as PackAnswer;
    assert.deepStrictEqual(
      withPin.items.filter((it) => it.includeMode === 'manual').map(excludeKey),
      ['cmd/shop/main.go:10-15'],
      'the pack marks it pinned',
    );
    const whole = (await conn!.sendRequest('workspace/executeCommand', {
      command: Commands.pin,
      arguments: [{ textDocument: { uri: fileUri(path.join(ws, 'retry', 'backoff.py')) } }],
    })) as PinsAnswer;
    assert.deepStrictEqual(whole.pins.map(pinLabel), ['cmd/shop/main.go:10-15', 'retry/backoff.py']);
    for (const p of whole.pins) {
      await conn!.sendRequest('workspace/executeCommand', { command: Commands.unpin, arguments: [pinPlace(p)] });
    }
    const none = (await conn!.sendRequest('workspace/executeCommand', { command: Commands.pins, arguments: [{ folder: folders[0].uri }] })) as PinsAnswer;
    assert.deepStrictEqual(none.pins, []);
  });

  it('the Pins view removes a pin whose file is gone and keeps the others, in order', async () => {
    const gone = path.join(ws, 'gone.go');
    fs.writeFileSync(gone, 'package main\n\n// Gone is deleted after it is pinned.\nfunc Gone() {}\n');
    const pin = (args: object) => conn!.sendRequest('workspace/executeCommand', { command: Commands.pin, arguments: [args] }) as Promise<PinsAnswer>;
    await pin({ textDocument: { uri: fileUri(path.join(ws, 'retry', 'backoff.py')) } });
    await pin({ textDocument: { uri: fileUri(gone) }, range: { start: { line: 2, character: 0 }, end: { line: 3, character: 14 } } });
    await pin({ textDocument: { uri: fileUri(path.join(ws, 'cmd', 'shop', 'main.go')) }, range: { start: { line: 9, character: 0 }, end: { line: 14, character: 1 } } });
    fs.rmSync(gone);

    harness.reset();
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: vscode.Uri.file(ws), name: 'shop', index: 0 }];
    const client: ContextClient = {
      execute: <T>(command: string, args: object | undefined) => conn!.sendRequest('workspace/executeCommand', { command, arguments: args === undefined ? [] : [args] }) as Promise<T>,
      uriOf: (u: vscode.Uri) => u.toString(),
    };
    const changed = new vscode.EventEmitter<void>();
    const view = new PinsView({ client: () => client, unavailableReason: () => '', pinsChanged: () => changed.fire() }, changed.event);
    harness.treeViews.find((v) => v.id === PINS_VIEW).visible = true;
    await view.load();
    const [shop] = view.listed();
    assert.deepStrictEqual(shop.pins!.map((p) => `${pinLabel(p)}${p.error ? ' (gone)' : ''}`), ['retry/backoff.py', 'gone.go:3-4 (gone)', 'cmd/shop/main.go:10-15']);
    const node = pinsTree([shop])[1];
    harness.answers = [CLEAR_AND_REPIN]; // asked only if the server cannot unpin it alone
    await harness.commandHandlers.get(ExtensionCommands.pinsUnpin)!(node);
    assert.deepStrictEqual(harness.called('showErrorMessage'), []);
    const left = (await conn!.sendRequest('workspace/executeCommand', { command: Commands.pins, arguments: [{}] })) as PinsAnswer;
    assert.deepStrictEqual(left.pins.map(pinLabel), ['retry/backoff.py', 'cmd/shop/main.go:10-15']);
    await conn!.sendRequest('workspace/executeCommand', { command: Commands.unpin, arguments: [{ all: true }] });
    view.dispose();
  });

  it('re-indexes after a dry run, with progress', async () => {
    const dry = (await conn!.sendRequest('workspace/executeCommand', { command: Commands.reindex, arguments: [reindexArgs('dryRun')] })) as ReindexAnswer;
    assert.strictEqual(dry.folders[0].status, 'planned');
    assert.strictEqual(dry.folders[0].jobId, undefined);
    assert.match(reindexQuestion(dry), /^Re-index 11 files in 1 folder\?/);
    const ends = progressEnds;
    const res = (await conn!.sendRequest('workspace/executeCommand', { command: Commands.reindex, arguments: [reindexArgs('confirm')] })) as ReindexAnswer;
    const jobId = res.folders[0].jobId;
    assert.ok(typeof jobId === 'string' && jobId !== '');
    await until('the reindex progress to end', () => progressEnds > ends && !status.busy());
    await until('the job to be done', async () => {
      const s = await stats();
      return s.folders.flatMap((f) => f.jobs).some((j) => j.jobId === jobId && j.status === 'done');
    });
  });

  it('takes pushed settings without complaints and reports them in status', async () => {
    settings.budgetTokens.globalValue = 900;
    await conn!.sendNotification('workspace/didChangeConfiguration', { settings: serverSettings(reader(settings)) });
    await until('the new budget in status', async () => {
      const st = (await conn!.sendRequest('workspace/executeCommand', { command: Commands.status, arguments: [] })) as {
        settings: { budgetTokens: number; embeddings: boolean };
      };
      return st.settings.budgetTokens === 900 && st.settings.embeddings === false;
    });
    const warnings = messages.filter((m) => /settings/i.test(m.message));
    assert.deepStrictEqual(warnings, [], 'the extension sends only keys the server knows, with valid values');
  });

  it('shows the server error for a malformed request instead of failing silently', async () => {
    try {
      await conn!.sendRequest('workspace/executeCommand', { command: Commands.search, arguments: [{ query: '' }] });
      assert.fail('an empty query was accepted');
    } catch (err) {
      assert.ok(err instanceof ResponseError);
      assert.match(errorMessage('Search Codebase', err), /^context-ls: Search Codebase failed: .*query/);
    }
  });
});
