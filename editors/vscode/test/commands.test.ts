// The commands end to end against the stubbed 'vscode' module and a fake
// client: what reaches the server, what the user sees.

import * as assert from 'assert';
import * as vscode from 'vscode';
import {
  ASK_QUERY,
  COPY_REGISTRATION,
  copyContextForQuery,
  copyContextForSelection,
  exploreDefinition,
  ExtensionCommands,
  findCallers,
  findTests,
  OWNED_ELSEWHERE,
  pin,
  registerCommands,
  REINDEX_BUTTON,
  reindexWorkspace,
  searchCodebase,
  setUpForAgents,
  showRelated,
  showStats,
} from '../src/commands';
import { ConfigReader } from '../src/config';
import { pickLocation } from '../src/picker';
import { Commands, GraphResult, PackAnswer, RelatedResult, ReindexAnswer, SearchResult, StatsAnswer } from '../src/protocol';
import { ResultNode } from '../src/results';
import { ProgressEnd } from '../src/status';
import { FakeClient, RpcError } from './fakeClient';
import { FakeQuickPick, fakeEditor, harness } from './stub/vscode';
import { fixture } from './golden';

const FILE = '/home/dev/shop/billing/invoice total.go';

function deps(client: FakeClient | undefined, config: Record<string, unknown> = {}) {
  const d = {
    stats: [] as string[],
    refreshed: 0,
    client: () => client,
    unavailableReason: () => 'the server is not running (Context: Restart Server starts it)',
    config: (): ConfigReader => ({ inspect: (key: string) => (key in config ? { globalValue: config[key] } : {}) }),
    showStatsDocument: async (md: string) => {
      d.stats.push(md);
    },
    refreshStatus: () => {
      d.refreshed++;
    },
    progressEnds: new vscode.EventEmitter<ProgressEnd>(),
    onDidEndProgress: (l: (e: ProgressEnd) => unknown) => d.progressEnds.event(l),
    binary: '/opt/context-ls/bin/context-ls' as string | undefined,
    serverPath: () => d.binary,
    results: [] as { title: string; nodes: ResultNode[] }[],
    showResults: async (title: string, nodes: ResultNode[]) => {
      d.results.push({ title, nodes });
    },
    pinsChanges: 0,
    pinsChanged: () => {
      d.pinsChanges++;
    },
  };
  return d;
}

function openEditor(anchor: [number, number], active: [number, number]): void {
  (vscode.window as { activeTextEditor: unknown }).activeTextEditor = fakeEditor(
    vscode.Uri.file(FILE),
    new vscode.Position(anchor[0], anchor[1]),
    new vscode.Position(active[0], active[1]),
  );
  (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: vscode.Uri.file('/home/dev/shop'), name: 'shop', index: 0 }];
}

const notInBuild = (what: string) => new RpcError(-32601, `workspace/executeCommand: ${what}: not in this build: not supported by this server`);

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('commands', () => {
  const results = fixture<{ pack: PackAnswer; callers: GraphResult; tests: GraphResult; related: RelatedResult; search: SearchResult }>('results.json');
  beforeEach(() => harness.reset());

  it('Copy Context for Selection packs the selection in the chosen format and copies it', async () => {
    openEditor([9, 0], [12, 4]);
    const client = new FakeClient({ 'contextLs.contextPack': results.pack });
    await copyContextForSelection(deps(client, { packFormat: 'xml' }));
    assert.deepStrictEqual(client.sent.map((s) => [s.command, s.args]), [
      [
        'contextLs.contextPack',
        {
          textDocument: { uri: 'file:///home/dev/shop/billing/invoice%20total.go' },
          position: { line: 12, character: 4 },
          range: { start: { line: 9, character: 0 }, end: { line: 12, character: 4 } },
          format: 'xml',
        },
      ],
    ]);
    assert.strictEqual(harness.clipboard, results.pack.text);
    assert.deepStrictEqual(harness.called('showInformationMessage'), [['Context copied: 1,234 / 4,000 tokens, 1 snippet.']]);
  });

  it('Copy Context for Selection with only a cursor asks for the symbol under it', async () => {
    openEditor([3, 5], [3, 5]);
    const client = new FakeClient({ 'contextLs.contextPack': results.pack });
    await copyContextForSelection(deps(client));
    assert.deepStrictEqual(client.sent[0].args, {
      textDocument: { uri: 'file:///home/dev/shop/billing/invoice%20total.go' },
      position: { line: 3, character: 5 },
      format: 'markdown',
    });
  });

  it('a missing engine part is shown as an error and the clipboard is left alone', async () => {
    openEditor([0, 0], [0, 0]);
    harness.clipboard = 'before';
    await copyContextForSelection(deps(new FakeClient({ 'contextLs.contextPack': notInBuild('contextPack: context packs are') })));
    assert.strictEqual(harness.clipboard, 'before');
    assert.deepStrictEqual(harness.called('showErrorMessage'), [
      [
        'context-ls: Copy Context for Selection failed: workspace/executeCommand: contextPack: context packs are: not in this build: not supported by this server',
      ],
    ]);
  });

  it('an empty pack does not overwrite the clipboard', async () => {
    openEditor([0, 0], [0, 0]);
    harness.clipboard = 'before';
    await copyContextForSelection(deps(new FakeClient({ 'contextLs.contextPack': { text: '', tokens: 0, budget: 4000, items: [] } })));
    assert.strictEqual(harness.clipboard, 'before');
    assert.strictEqual(harness.called('showWarningMessage').length, 1);
  });

  it('without a file editor, Copy Context for Selection offers the query variant', async () => {
    const client = new FakeClient({ 'contextLs.contextPack': results.pack });
    harness.answers = [ASK_QUERY, 'retry uploads'];
    await copyContextForSelection(deps(client));
    assert.deepStrictEqual(client.sent.map((s) => s.args), [{ query: 'retry uploads', format: 'markdown' }]);
    assert.strictEqual(harness.clipboard, results.pack.text);
  });

  it('Copy Context for Query does nothing when the input box is dismissed', async () => {
    const client = new FakeClient({});
    harness.answers = [undefined];
    await copyContextForQuery(deps(client));
    assert.deepStrictEqual(client.sent, []);
  });

  it('commands explain why when the server is not running', async () => {
    openEditor([0, 0], [0, 0]);
    await findCallers(deps(undefined));
    assert.deepStrictEqual(harness.called('showErrorMessage'), [['context-ls: the server is not running (Context: Restart Server starts it)']]);
  });

  it('Find Callers peeks at the call sites', async () => {
    openEditor([24, 17], [24, 17]);
    const client = new FakeClient({ 'contextLs.callers': results.callers });
    await findCallers(deps(client));
    const [call] = harness.called('executeCommand');
    assert.strictEqual(call[0], 'editor.action.peekLocations');
    assert.strictEqual((call[1] as vscode.Uri).fsPath, FILE);
    assert.deepStrictEqual(call[2], new vscode.Position(24, 17));
    const locs = call[3] as vscode.Location[];
    assert.deepStrictEqual(
      locs.map((l) => `${l.uri.fsPath}:${l.range.start.line}:${l.range.start.character}`),
      ['/home/dev/shop/cmd/shop/main.go:13:13', '/home/dev/shop/inventory/stock_test.go:10:14', '/home/dev/shop/inventory/stock_test.go:13:14', '/home/dev/shop/cmd/batch/run.go:3:0'],
    );
    assert.strictEqual(call[4], 'peek');
  });

  it('Find Tests with no tests says so instead of opening an empty peek', async () => {
    openEditor([0, 0], [0, 0]);
    const none = { results: [{ definition: { symbol: 'InvoiceTotal', kind: 'function' }, items: [], omitted: 2 }] };
    await findTests(deps(new FakeClient({ 'contextLs.tests': none })));
    assert.deepStrictEqual(harness.called('executeCommand'), []);
    assert.deepStrictEqual(harness.called('showInformationMessage'), [
      ['context-ls: no tests of InvoiceTotal found (2 left out: name-only matches or past the limit).'],
    ]);
  });

  it('Find Tests reports the graph missing from the build', async () => {
    openEditor([0, 0], [0, 0]);
    await findTests(deps(new FakeClient({ 'contextLs.tests': notInBuild('tests: the code graph (test detection) is') })));
    assert.match(harness.called('showErrorMessage')[0][0] as string, /^context-ls: Find Tests failed: .*not supported by this server$/);
  });

  it('Show Related Code lists items in a picker, previews and jumps', async () => {
    openEditor([0, 0], [0, 0]);
    const done = showRelated(deps(new FakeClient({ 'contextLs.relatedContext': results.related })));
    await tick();
    await tick();
    const qp = harness.quickPicks[0] as FakeQuickPick<{ label: string; entry: { location: { uri: string } } }>;
    assert.ok(qp !== undefined, 'no picker shown');
    assert.strictEqual(qp.title, 'Related to Stock.Reserve');
    assert.deepStrictEqual(qp.items.map((i) => i.label), ['ErrOutOfStock', 'stock_test.go']);
    qp.highlight(qp.items[1]);
    const preview = harness.called('showTextDocument')[0];
    assert.strictEqual((preview[0] as vscode.Uri).fsPath, '/home/dev/shop/inventory/stock_test.go');
    assert.strictEqual((preview[1] as { preview: boolean; preserveFocus: boolean }).preserveFocus, true);
    qp.accept(qp.items[0]);
    await done;
    const jumps = harness.called('showTextDocument');
    const last = jumps[jumps.length - 1];
    assert.strictEqual((last[0] as vscode.Uri).fsPath, '/home/dev/shop/inventory/stock.go');
    assert.deepStrictEqual((last[1] as { selection: vscode.Range }).selection.start, new vscode.Position(5, 0));
    assert.strictEqual((last[1] as { preview: boolean }).preview, false);
    assert.ok(qp.disposed);
  });

  it('a dismissed picker puts the original editor back after previewing', async () => {
    openEditor([2, 1], [2, 1]);
    const p = pickLocation({
      title: 't',
      placeholder: 'p',
      entries: [{ label: 'a', description: 'a.go:1', location: { uri: 'file:///home/dev/shop/a.go', range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } } } }],
    });
    const qp = harness.quickPicks[0] as FakeQuickPick<unknown>;
    qp.highlight(qp.items[0]);
    qp.hide();
    assert.strictEqual(await p, undefined);
    const calls = harness.called('showTextDocument');
    assert.strictEqual(calls.length, 2);
    assert.strictEqual((calls[1][0] as { uri: vscode.Uri }).uri.fsPath, FILE, 'the original document is shown again');
  });

  it('Search Codebase queries as you type, debounced, and drops stale answers', async () => {
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: vscode.Uri.file('/home/dev/shop'), name: 'shop', index: 0 }];
    const pending: { query: string; resolve: (v: SearchResult) => void; token?: vscode.CancellationToken }[] = [];
    const client = new FakeClient({
      'contextLs.search': (args: unknown) =>
        new Promise<SearchResult>((resolve) => pending.push({ query: (args as { query: string }).query, resolve })),
    });
    const done = searchCodebase(deps(client, { searchResults: 5 }));
    const qp = harness.quickPicks[0] as FakeQuickPick<{ label: string; description: string; alwaysShow: boolean }>;
    qp.type('re');
    qp.type('retr');
    qp.type('retry uploads');
    await new Promise((r) => setTimeout(r, 250));
    assert.deepStrictEqual(client.sent.map((s) => s.args), [{ query: 'retry uploads', k: 5 }], 'only the last keystroke is sent');
    assert.ok(qp.busy);
    qp.type('retry uploads!');
    await new Promise((r) => setTimeout(r, 250));
    assert.strictEqual(client.sent.length, 2);
    assert.ok(client.sent[0].token?.isCancellationRequested, 'the superseded request is cancelled');
    pending[0].resolve({ query: 'retry uploads', hits: results.search.hits.slice(0, 1) });
    await tick();
    assert.strictEqual(qp.items.length, 0, 'a stale answer is dropped');
    pending[1].resolve(results.search);
    await tick();
    assert.deepStrictEqual(
      qp.items.map((i) => [i.label, i.description, i.alwaysShow]),
      [
        ['$(symbol-function) retry_upload', 'retry/backoff.py:6 · bm25 symbol', true],
        ['$(markdown) Shop guide > Uploads', 'docs/guide.md:7 · bm25', true],
        ['$(symbol-misc) invoice total.go', '/home/dev/shop-tools/billing/invoice total.go:10 · bm25', true],
        ['$(symbol-method) X.Do', '/elsewhere/vendor/x.go:1 · bm25', true],
      ],
    );
    assert.ok(!qp.busy);
    qp.hide();
    await done;
  });

  it('Search Codebase sends typed filters and says plainly when nothing matched', async () => {
    const client = new FakeClient({ 'contextLs.search': { query: 'reserve', hits: [] } });
    const done = searchCodebase(deps(client));
    const qp = harness.quickPicks[0] as FakeQuickPick<{ label: string; entry?: unknown }>;
    qp.type('reserve lang:python path:!**/*_test.go');
    assert.strictEqual(qp.title, 'Search Codebase (lang: python · path: !**/*_test.go)');
    await new Promise((r) => setTimeout(r, 250));
    assert.deepStrictEqual(client.sent.map((s) => s.args), [{ query: 'reserve', k: 30, languages: ['python'], paths: ['!**/*_test.go'] }]);
    assert.deepStrictEqual(
      qp.items.map((i) => i.label),
      ['No results for “reserve” with lang: python · path: !**/*_test.go.'],
    );
    qp.accept(qp.items[0]);
    qp.highlight(qp.items[0]);
    assert.deepStrictEqual(harness.called('showTextDocument'), [], 'the message row opens nothing');
    qp.type('lang:go');
    await new Promise((r) => setTimeout(r, 250));
    assert.strictEqual(client.sent.length, 1, 'filters alone send no query');
    assert.deepStrictEqual(qp.items.map((i) => i.label), ['Type words to search for as well as the filters.']);
    qp.hide();
    await done;
  });

  it('Search Codebase shows one error per picker', async () => {
    const client = new FakeClient({ 'contextLs.search': new RpcError(-32602, 'arguments[0].query: required') });
    const done = searchCodebase(deps(client));
    const qp = harness.quickPicks[0] as FakeQuickPick<unknown>;
    qp.type('a');
    await new Promise((r) => setTimeout(r, 200));
    qp.type('ab');
    await new Promise((r) => setTimeout(r, 200));
    assert.strictEqual(client.sent.length, 2);
    assert.deepStrictEqual(harness.called('showErrorMessage'), [['context-ls: Search Codebase failed: query: required']]);
    qp.hide();
    await done;
  });

  it('Reindex Workspace asks first and sends confirm only after yes', async () => {
    const dry: ReindexAnswer = fixture<{ reindexDry: ReindexAnswer }>('results.json').reindexDry;
    const client = new FakeClient({
      'contextLs.reindex': (args: unknown) =>
        (args as { dryRun?: boolean }).dryRun ? dry : { folders: [{ folder: 'file:///home/dev/shop', status: 'started', jobId: 'reindex-7', paths: [] }] },
    });
    harness.answers = [undefined];
    const d = deps(client);
    await reindexWorkspace(d);
    assert.deepStrictEqual(client.sent.map((s) => s.args), [{ dryRun: true }], 'dismissing the dialog re-indexes nothing');
    const [question] = harness.called('showWarningMessage');
    assert.deepStrictEqual(question, [
      'Re-index 2 files in 2 folders and drop 1 file no longer indexable? Every selected file is parsed and written again.',
      { modal: true },
      REINDEX_BUTTON,
    ]);

    harness.answers = [REINDEX_BUTTON];
    await reindexWorkspace(d);
    assert.deepStrictEqual(client.sent.map((s) => s.args), [{ dryRun: true }, { dryRun: true }, { confirm: true }]);
    assert.deepStrictEqual(harness.called('showInformationMessage'), [['context-ls: re-index started; progress is in the status bar.']]);
    assert.strictEqual(d.refreshed, 1);
    d.progressEnds.fire({ title: 'Indexing shop', message: '6/6 files' });
    d.progressEnds.fire({ title: 'Re-indexing', message: 'reindex-7 done: 6 files re-indexed, 0 removed, 0 failed' });
    d.progressEnds.fire({ title: 'Re-indexing', message: 'reindex-7 done: 6 files re-indexed, 0 removed, 0 failed' });
    assert.deepStrictEqual(harness.called('showInformationMessage').slice(1), [['context-ls: re-index done: 6 files re-indexed, 0 removed, 0 failed.']], 'the end is told once, without the job id');
  });

  it('Reindex Workspace tells only the end of a job that finished before its answer', async () => {
    const d = deps(undefined);
    const client = new FakeClient({
      'contextLs.reindex': (args: unknown) => {
        if ((args as { dryRun?: boolean }).dryRun) {
          return { folders: [] };
        }
        d.progressEnds.fire({ title: 'Re-indexing shop', message: 'reindex failed: disk full' });
        return { folders: [{ folder: 'file:///home/dev/shop', status: 'started', jobId: 'reindex-2', paths: [] }] };
      },
    });
    d.client = () => client;
    harness.answers = [REINDEX_BUTTON];
    await reindexWorkspace(d);
    assert.deepStrictEqual(harness.called('showInformationMessage'), [['context-ls: re-index of shop failed: disk full.']]);
  });

  it('Pin reports the pins; Unpin errors are shown', async () => {
    openEditor([1, 0], [3, 0]);
    const client = new FakeClient({
      'contextLs.pin': { pins: [{ location: { uri: 'file:///x', range: { start: { line: 1, character: 0 }, end: { line: 3, character: 0 } } }, tokens: 55 }] },
      'contextLs.unpin': new RpcError(-32803, 'unpin: the index is closed'),
    });
    const d = deps(client);
    await pin(d, 'pin');
    assert.strictEqual(d.pinsChanges, 1, 'the pins view and the pack preview are told');
    await pin(d, 'unpin');
    assert.strictEqual(d.pinsChanges, 1, 'a failed unpin changed nothing');
    assert.deepStrictEqual(harness.called('showInformationMessage'), [['context-ls: Pinned. 1 pin now adds 55 tokens to every context pack.']]);
    assert.deepStrictEqual(harness.called('showErrorMessage'), [['context-ls: Unpin failed: unpin: the index is closed']]);
    assert.deepStrictEqual(client.sent[0].args, client.sent[1].args);
  });

  it('Unpin of something not pinned says so plainly', async () => {
    openEditor([1, 0], [3, 0]);
    const client = new FakeClient({ 'contextLs.unpin': new RpcError(-32602, 'arguments[0]: billing/invoice total.go:2-4: not pinned') });
    await pin(deps(client), 'unpin');
    assert.deepStrictEqual(harness.called('showErrorMessage'), []);
    assert.deepStrictEqual(harness.called('showInformationMessage'), [['context-ls: billing/invoice total.go:2-4 is not pinned, so there is nothing to unpin.']]);
  });

  it('Explore Definition fills the results view with every group, failures included', async () => {
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: vscode.Uri.file('/home/dev/shop'), name: 'shop', index: 0 }];
    openEditor([24, 17], [24, 17]);
    const client = new FakeClient({
      'contextLs.callers': results.callers,
      'contextLs.callees': new RpcError(-32601, 'contextLs.callees: the call graph is not in this build'),
      'contextLs.tests': results.tests,
      'contextLs.relatedContext': results.related,
    });
    const d = deps(client);
    await exploreDefinition(d);
    assert.deepStrictEqual(
      client.sent.map((s) => s.command),
      ['contextLs.callers', 'contextLs.callees', 'contextLs.tests', 'contextLs.relatedContext'],
    );
    assert.ok(client.sent.every((s) => JSON.stringify(s.args) === JSON.stringify(client.sent[0].args)), 'one place for every question');
    assert.strictEqual(d.results.length, 1);
    const [shown] = d.results;
    assert.deepStrictEqual(
      shown.nodes.map((n) => `${n.label} (${n.description})`),
      ['Definitions (1)', 'Callers (3)', 'Callees (failed)', 'Tests (2)', 'Related (2)'],
    );
    assert.match(shown.nodes[2].children![0].label, /the call graph is not in this build/);
    assert.deepStrictEqual(harness.called('showErrorMessage'), []);
  });

  it('Explore Definition with every answer failing says why and leaves the view alone', async () => {
    openEditor([0, 0], [0, 0]);
    const fail = new RpcError(-32602, 'arguments[0].position: no definition here; select a range instead');
    const d = deps(new FakeClient({ 'contextLs.callers': fail, 'contextLs.callees': fail, 'contextLs.tests': fail, 'contextLs.relatedContext': fail }));
    await exploreDefinition(d);
    assert.deepStrictEqual(d.results, []);
    assert.deepStrictEqual(harness.called('showErrorMessage'), [['context-ls: Explore Definition failed: position: no definition here; select a range instead']]);
  });

  it('Set Up for Agents shows the MCP registration of the workspace and copies it', async () => {
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: vscode.Uri.file('/home/dev/shop'), name: 'shop', index: 0 }];
    harness.answers = [COPY_REGISTRATION];
    await setUpForAgents(deps(undefined));
    const want = {
      mcpServers: { 'context-ls': { command: '/opt/context-ls/bin/context-ls', args: ['mcp', '--root', '/home/dev/shop'] } },
    };
    const [opened] = harness.called('openTextDocument');
    assert.strictEqual((opened[0] as { language: string }).language, 'json');
    assert.deepStrictEqual(JSON.parse((opened[0] as { content: string }).content), want);
    assert.deepStrictEqual(JSON.parse(harness.clipboard), want);
    assert.match(harness.called('showInformationMessage')[0][0] as string, /\.mcp\.json/);
  });

  it('Set Up for Agents without a server binary says why', async () => {
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: vscode.Uri.file('/home/dev/shop'), name: 'shop', index: 0 }];
    const d = deps(undefined);
    d.binary = undefined;
    await setUpForAgents(d);
    assert.deepStrictEqual(harness.called('openTextDocument'), []);
    assert.deepStrictEqual(harness.called('showErrorMessage'), [['context-ls: the server is not running (Context: Restart Server starts it)']]);
  });

  it('Show Index Stats renders the stats document', async () => {
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: vscode.Uri.file('/home/dev/shop'), name: 'shop', index: 0 }];
    const d = deps(new FakeClient({ 'contextLs.stats': fixture<StatsAnswer>('stats.json') }));
    await showStats(d);
    assert.strictEqual(d.stats.length, 1);
    assert.match(d.stats[0], /^# context-ls index\n\n## shop\n/);
    assert.strictEqual(d.refreshed, 1);
  });

  it('cancelled requests are not reported as errors', async () => {
    openEditor([0, 0], [0, 0]);
    await showRelated(deps(new FakeClient({ 'contextLs.relatedContext': new RpcError(-32800, 'cancelled') })));
    assert.deepStrictEqual(harness.called('showErrorMessage'), []);
  });

  it('registers every command declared in package.json but those their owners register', () => {
    const pkg = require('../../package.json') as { contributes: { commands: { command: string }[]; menus: Record<string, { command: string }[]>; keybindings: { command: string }[] } };
    const declared = pkg.contributes.commands.map((c) => c.command).sort();
    const ids = Object.values(ExtensionCommands).sort();
    assert.deepStrictEqual(declared, ids, 'package.json and ExtensionCommands agree');
    const subs = registerCommands(deps(undefined));
    assert.deepStrictEqual([...harness.commandHandlers.keys(), ...OWNED_ELSEWHERE].sort(), ids);
    for (const id of [...Object.values(pkg.contributes.menus).flat(), ...pkg.contributes.keybindings].map((m) => m.command)) {
      assert.ok(ids.includes(id as (typeof ids)[number]), `menu or keybinding names unknown command ${id}`);
    }
    const server = Object.values(Commands) as string[];
    for (const id of ids) {
      assert.ok(!server.includes(id), `${id} clashes with a server command the language client registers`);
    }
    subs.forEach((s) => s.dispose());
  });
});
