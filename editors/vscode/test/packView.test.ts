// The Context Pack view under the stubbed 'vscode' module with a scripted
// client: what each action asks the server, and what the view then shows.

import * as assert from 'assert';
import * as vscode from 'vscode';
import { ExtensionCommands } from '../src/commands';
import { ConfigReader } from '../src/config';
import { excludeKey, PackNode } from '../src/pack';
import { ASK_PREVIEW_QUERY, PACK_SHOWN, PACK_VIEW, PackPreview } from '../src/packView';
import { PackArgs, PackItem, PackAnswer, PinsResult } from '../src/protocol';
import { FakeClient, RpcError } from './fakeClient';
import { fixture } from './golden';
import { fakeEditor, harness } from './stub/vscode';

const { pack, pins } = fixture<{ pack: PackAnswer; pins: PinsResult }>('pack-preview.json');
const STOCK = '/home/dev/shop/inventory/stock.go';

/** The server's pack for some arguments: the fixture's items but those exclude names, the budget asked. */
function answerPack(args: unknown): PackAnswer {
  const a = args as PackArgs;
  const left = (it: PackItem) => !(a.exclude ?? []).includes(excludeKey(it));
  return {
    ...pack,
    budget: a.budget ?? 600,
    excluded: (a.exclude ?? []).length,
    tokens: pack.items.reduce((n, it) => (left(it) ? n : n - it.tokens), pack.tokens),
    items: pack.items.filter(left),
  };
}

function setup(answers: Record<string, unknown>, config: Record<string, unknown> = {}) {
  const client = new FakeClient(answers);
  const changed = new vscode.EventEmitter<void>();
  const d = {
    pinsChanges: 0,
    client: () => client as FakeClient | undefined,
    unavailableReason: () => 'the server is not running (Context: Restart Server starts it)',
    config: (): ConfigReader => ({ inspect: (key: string) => (key in config ? { globalValue: config[key] } : {}) }),
    pinsChanged: () => {
      d.pinsChanges++;
      changed.fire();
    },
  };
  const preview = new PackPreview(d, changed.event);
  const view = harness.treeViews.find((v) => v.id === PACK_VIEW);
  view.visible = true;
  const provider = view.options.treeDataProvider as vscode.TreeDataProvider<PackNode>;
  const nodes = () => provider.getChildren() as PackNode[];
  const item = (label: string) => nodes().find((n) => n.label === label)!;
  const run = (id: string, ...args: unknown[]) => harness.commandHandlers.get(id)!(...args) as Promise<void>;
  return { client, d, preview, view, nodes, item, run };
}

function openStock(anchor: [number, number], active: [number, number]): vscode.TextEditor {
  const ed = fakeEditor(vscode.Uri.file(STOCK), new vscode.Position(...anchor), new vscode.Position(...active));
  (vscode.window as { activeTextEditor: unknown }).activeTextEditor = ed;
  (vscode.window as unknown as { visibleTextEditors: unknown[] }).visibleTextEditors = [ed];
  return ed;
}

/** A promise and the function that settles it. */
function gate<T>(): { promise: Promise<T>; open: (v: T) => void } {
  let open!: (v: T) => void;
  const promise = new Promise<T>((r) => (open = r));
  return { promise, open };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('Context Pack view', () => {
  beforeEach(() => harness.reset());

  it('Preview Context for Selection shows the pack item by item, its total in the title, and brings the view forward', async () => {
    openStock([24, 18], [24, 18]);
    const t = setup({ 'contextLs.contextPack': answerPack }, { packFormat: 'xml' });
    await t.run(ExtensionCommands.previewContextForSelection);
    assert.deepStrictEqual(t.client.sent.map((s) => s.args), [
      { textDocument: { uri: 'file:///home/dev/shop/inventory/stock.go' }, position: { line: 24, character: 18 }, format: 'xml' },
    ]);
    assert.strictEqual(t.view.description, 'Stock.Reserve · 447 / 600 tokens');
    assert.deepStrictEqual(
      t.nodes().map((n) => n.label),
      ['447 / 600 tokens', 'inventory/stock.go:6-7', 'inventory/stock.go:9-12', 'inventory/stock.go:25-31', 'cmd/shop/main.go:10-15', 'retry/backoff.py:1-16'],
    );
    assert.deepStrictEqual(harness.called('executeCommand'), [
      ['setContext', PACK_SHOWN, true],
      [`${PACK_VIEW}.focus`],
    ]);
    t.preview.dispose();
  });

  it('Drop builds the pack again without the item, and quick drops all count', async () => {
    openStock([24, 18], [24, 18]);
    const t = setup({ 'contextLs.contextPack': answerPack });
    await t.run(ExtensionCommands.previewContextForSelection);
    const first = gate<void>();
    t.client.answers['contextLs.contextPack'] = async (args: unknown) => {
      if ((args as PackArgs).exclude?.length === 1) {
        await first.promise; // the first drop answers last
      }
      return answerPack(args);
    };
    const a = t.run(ExtensionCommands.packDrop, t.item('inventory/stock.go:6-7'));
    const b = t.run(ExtensionCommands.packDrop, t.item('inventory/stock.go:9-12'));
    await b;
    first.open();
    await a;
    assert.deepStrictEqual(
      t.client.sent.slice(1).map((s) => (s.args as PackArgs).exclude),
      [['inventory/stock.go:6-7'], ['inventory/stock.go:6-7', 'inventory/stock.go:9-12']],
    );
    const labels = t.nodes().map((n) => n.label);
    assert.deepStrictEqual(labels, ['380 / 600 tokens', 'inventory/stock.go:25-31', 'cmd/shop/main.go:10-15', 'retry/backoff.py:1-16'], 'the older answer came last and was dropped');
    assert.strictEqual(t.view.description, 'Stock.Reserve · 380 / 600 tokens');
    assert.strictEqual(t.nodes()[0].description, '3 items · 2 dropped by you');

    const putBack = t.nodes()[0].children!.find((n) => n.label === 'inventory/stock.go:6-7')!;
    await t.run(ExtensionCommands.packPutBack, putBack);
    assert.deepStrictEqual((t.client.sent.at(-1)!.args as PackArgs).exclude, ['inventory/stock.go:9-12']);
    assert.ok(t.nodes().some((n) => n.label === 'inventory/stock.go:6-7'), 'put back');
    t.preview.dispose();
  });

  it('a failed build says why and keeps the pack and the request shown', async () => {
    openStock([24, 18], [24, 18]);
    const t = setup({ 'contextLs.contextPack': answerPack });
    await t.run(ExtensionCommands.previewContextForSelection);
    t.client.answers['contextLs.contextPack'] = new RpcError(-32803, 'pack: the index is closed');
    await t.run(ExtensionCommands.packDrop, t.item('inventory/stock.go:6-7'));
    assert.deepStrictEqual(harness.called('showErrorMessage'), [['context-ls: Drop failed: pack: the index is closed']]);
    assert.ok(t.nodes().some((n) => n.label === 'inventory/stock.go:6-7'), 'the view keeps the pack it had');
    t.client.answers['contextLs.contextPack'] = answerPack;
    await t.run(ExtensionCommands.packRefresh);
    assert.strictEqual((t.client.sent.at(-1)!.args as PackArgs).exclude, undefined, 'the failed drop is not remembered');
    t.preview.dispose();
  });

  it('Pin pins the item\'s lines, says what pins add, and the views follow', async () => {
    openStock([24, 18], [24, 18]);
    const t = setup({ 'contextLs.contextPack': answerPack, 'contextLs.pin': pins });
    await t.run(ExtensionCommands.previewContextForSelection);
    const stock = t.item('inventory/stock.go:9-12');
    await t.run(ExtensionCommands.packPin, stock);
    await tick();
    const pinSent = t.client.sent.find((s) => s.command === 'contextLs.pin')!;
    assert.deepStrictEqual(pinSent.args, { textDocument: { uri: 'file:///home/dev/shop/inventory/stock.go' }, range: { start: { line: 8, character: 0 }, end: { line: 11, character: 1 } } });
    assert.strictEqual(t.d.pinsChanges, 1);
    assert.deepStrictEqual(harness.called('showInformationMessage'), [['context-ls: Pinned. 3 pins now add 169 tokens to every context pack.']]);
    assert.strictEqual(t.client.sent.at(-1)!.command, 'contextLs.contextPack', 'the pack is built again with the pin');
    t.preview.dispose();
  });

  it('Change Pack Budget asks with the budget shown, takes only budgets the server takes, and keeps what was dropped', async () => {
    openStock([24, 18], [24, 18]);
    const t = setup({ 'contextLs.contextPack': answerPack });
    await t.run(ExtensionCommands.previewContextForSelection);
    await t.run(ExtensionCommands.packDrop, t.item('inventory/stock.go:6-7'));
    harness.answers = ['8,000'];
    await t.run(ExtensionCommands.packBudget);
    const [box] = harness.called('showInputBox');
    assert.strictEqual(box[0].value, '600');
    assert.match(box[0].validateInput('50'), /100 to 1,000,000/);
    assert.strictEqual(box[0].validateInput('2000'), undefined);
    assert.deepStrictEqual(t.client.sent.at(-1)!.args, {
      textDocument: { uri: 'file:///home/dev/shop/inventory/stock.go' },
      position: { line: 24, character: 18 },
      format: 'markdown',
      budget: 8000,
      exclude: ['inventory/stock.go:6-7'],
    });
    assert.strictEqual(t.view.description, 'Stock.Reserve · 408 / 8,000 tokens');
    const sent = t.client.sent.length;
    harness.answers = [undefined];
    await t.run(ExtensionCommands.packBudget);
    assert.strictEqual(t.client.sent.length, sent, 'a dismissed box changes nothing');
    t.preview.dispose();
  });

  it('Copy Pack copies the pack shown and says how big it is', async () => {
    openStock([24, 18], [24, 18]);
    const t = setup({ 'contextLs.contextPack': answerPack });
    await t.run(ExtensionCommands.packCopy);
    assert.match(harness.called('showInformationMessage')[0][0] as string, /no pack is shown/);
    assert.strictEqual(harness.clipboard, '');
    await t.run(ExtensionCommands.previewContextForSelection);
    await t.run(ExtensionCommands.packCopy);
    assert.strictEqual(harness.clipboard, pack.text);
    assert.deepStrictEqual(harness.called('showInformationMessage')[1], ['Context copied: 447 / 600 tokens, 5 snippets.']);
    t.preview.dispose();
  });

  it('Insert Pack at Cursor inserts into the editor the preview came from, at its cursor', async () => {
    const source = openStock([24, 18], [24, 18]);
    const t = setup({ 'contextLs.contextPack': answerPack });
    await t.run(ExtensionCommands.previewContextForSelection);
    source.selection = new vscode.Selection(new vscode.Position(31, 0), new vscode.Position(31, 0));
    const other = fakeEditor(vscode.Uri.file('/home/dev/shop/notes.md'), new vscode.Position(0, 0), new vscode.Position(0, 0));
    (vscode.window as { activeTextEditor: unknown }).activeTextEditor = other;
    (vscode.window as unknown as { visibleTextEditors: unknown[] }).visibleTextEditors = [other, source];
    await t.run(ExtensionCommands.packInsert);
    const [[uri, at, text]] = harness.called('insert');
    assert.strictEqual((uri as vscode.Uri).fsPath, STOCK);
    assert.deepStrictEqual(at, new vscode.Position(31, 0));
    assert.strictEqual(text, pack.text);
    assert.deepStrictEqual(harness.called('showInformationMessage'), [['Context inserted: 447 / 600 tokens, 5 snippets.']]);
    t.preview.dispose();
  });

  it('Insert Pack at Cursor says so when the editor does not take the text', async () => {
    const ed = fakeEditor(vscode.Uri.file(STOCK), new vscode.Position(0, 0), new vscode.Position(0, 0), false);
    (vscode.window as { activeTextEditor: unknown }).activeTextEditor = ed;
    (vscode.window as unknown as { visibleTextEditors: unknown[] }).visibleTextEditors = [ed];
    const t = setup({ 'contextLs.contextPack': answerPack });
    await t.run(ExtensionCommands.previewContextForSelection);
    await t.run(ExtensionCommands.packInsert);
    assert.deepStrictEqual(harness.called('showErrorMessage'), [[`context-ls: Insert at Cursor failed: ${STOCK} did not take the text.`]]);
    t.preview.dispose();
  });

  it('Preview Context for Query previews a question; without a file editor the selection variant offers it', async () => {
    const t = setup({ 'contextLs.contextPack': (args: unknown) => ({ ...answerPack(args), items: pack.items.filter((it) => it.source !== 'selection') }) });
    harness.answers = [ASK_PREVIEW_QUERY, '  retry failed uploads '];
    await t.run(ExtensionCommands.previewContextForSelection);
    assert.deepStrictEqual(t.client.sent.map((s) => s.args), [{ query: 'retry failed uploads', format: 'markdown' }]);
    assert.strictEqual(t.view.description, '“retry failed uploads” · 447 / 600 tokens');
    t.preview.dispose();
  });

  it('without a server, says why and shows nothing', async () => {
    openStock([24, 18], [24, 18]);
    const t = setup({});
    t.d.client = () => undefined;
    await t.run(ExtensionCommands.previewContextForSelection);
    assert.deepStrictEqual(harness.called('showErrorMessage'), [['context-ls: the server is not running (Context: Restart Server starts it)']]);
    assert.deepStrictEqual(t.nodes(), []);
    t.preview.dispose();
  });
});
