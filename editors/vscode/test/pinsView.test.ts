// The Pins view under the stubbed 'vscode' module with a scripted client:
// when pins are listed, what Unpin and Clear All ask the server.

import * as assert from 'assert';
import * as vscode from 'vscode';
import { ExtensionCommands } from '../src/commands';
import { PinNode } from '../src/pins';
import { CLEAR_ALL, CLEAR_AND_REPIN, PINS_VIEW, PinsView } from '../src/pinsView';
import { PinsResult } from '../src/protocol';
import { FakeClient, RpcError } from './fakeClient';
import { fixture } from './golden';
import { harness } from './stub/vscode';

/** The real server's pins: retry/backoff.py (whole), gone.go:3-3 (its file is gone), cmd/shop/main.go:10-15. */
const { pins } = fixture<{ pins: PinsResult }>('pack-preview.json');

const tick = () => new Promise((r) => setTimeout(r, 0));

function setup(answers: Record<string, unknown>, folders = ['shop']) {
  (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = folders.map((name, index) => ({ uri: vscode.Uri.file(`/home/dev/${name}`), name, index }));
  const client = new FakeClient(answers);
  const changed = new vscode.EventEmitter<void>();
  const d = {
    pinsChanges: 0,
    client: () => client as FakeClient | undefined,
    unavailableReason: () => 'the server is still starting; try again in a moment',
    pinsChanged: () => {
      d.pinsChanges++;
      changed.fire();
    },
  };
  const view = new PinsView(d, changed.event);
  const tree = harness.treeViews.find((v) => v.id === PINS_VIEW);
  const provider = tree.options.treeDataProvider as vscode.TreeDataProvider<PinNode>;
  const nodes = () => provider.getChildren() as PinNode[];
  const run = (id: string, ...args: unknown[]) => harness.commandHandlers.get(id)!(...args) as Promise<void>;
  return { client, d, view, tree, nodes, run, changed };
}

describe('Pins view', () => {
  beforeEach(() => harness.reset());

  it('lists the pins when shown, and again after a change only once it is visible', async () => {
    const t = setup({ 'contextLs.pins': pins });
    await t.view.refresh();
    assert.strictEqual(t.client.sent.length, 0, 'hidden: nothing asked');
    t.tree.setVisible(true);
    await tick();
    assert.deepStrictEqual(t.client.sent.map((s) => [s.command, s.args]), [['contextLs.pins', { folder: 'file:///home/dev/shop' }]]);
    assert.deepStrictEqual(
      t.nodes().map((n) => `${n.label} — ${n.description}`),
      ['retry/backoff.py — 109 tokens', 'gone.go:3-3 — file: "gone.go" does not exist', 'cmd/shop/main.go:10-15 — 60 tokens'],
    );
    assert.strictEqual(t.tree.description, '3 pins · 169 tokens in every pack');
    t.changed.fire();
    await tick();
    assert.strictEqual(t.client.sent.length, 2, 'visible: listed again at once');
    t.tree.setVisible(false);
    t.changed.fire();
    t.tree.setVisible(true);
    await tick();
    assert.strictEqual(t.client.sent.length, 3, 'a change missed while hidden is caught up once');
    t.view.dispose();
  });

  it('without a server says why in the view, and lists the pins once it runs', async () => {
    const t = setup({ 'contextLs.pins': pins });
    t.d.client = () => undefined;
    t.tree.setVisible(true);
    await tick();
    assert.deepStrictEqual(t.nodes().map((n) => n.label), ['pins not listed: the server is still starting; try again in a moment']);
    t.d.client = () => t.client;
    await t.view.refresh();
    assert.strictEqual(t.nodes().length, 3);
    t.view.dispose();
  });

  it('Unpin removes the pin as it was pinned and the views follow', async () => {
    const t = setup({ 'contextLs.pins': pins, 'contextLs.unpin': { ...pins, pins: pins.pins.slice(1) } });
    t.tree.setVisible(true);
    await tick();
    await t.run(ExtensionCommands.pinsUnpin, t.nodes()[0]);
    assert.deepStrictEqual(t.client.sent[1].args, { textDocument: { uri: 'file:///home/dev/shop/retry/backoff.py' } });
    await t.run(ExtensionCommands.pinsUnpin, t.nodes()[2]);
    assert.deepStrictEqual(t.client.sent.filter((s) => s.command === 'contextLs.unpin')[1].args, {
      textDocument: { uri: 'file:///home/dev/shop/cmd/shop/main.go' },
      range: { start: { line: 9, character: 0 }, end: { line: 14, character: 1 } },
    });
    assert.strictEqual(t.d.pinsChanges, 2);
    t.view.dispose();
  });

  it('Unpin of a pin unpinned elsewhere says so and lists the pins again', async () => {
    const t = setup({ 'contextLs.pins': pins, 'contextLs.unpin': new RpcError(-32602, 'arguments[0]: retry/backoff.py: not pinned (pins lists what is pinned)') });
    t.tree.setVisible(true);
    await tick();
    await t.run(ExtensionCommands.pinsUnpin, t.nodes()[0]);
    assert.deepStrictEqual(harness.called('showInformationMessage'), [['context-ls: retry/backoff.py is not pinned, so there is nothing to unpin.']]);
    assert.strictEqual(t.d.pinsChanges, 1);
    t.view.dispose();
  });

  it('a pin whose file is gone is removed, once confirmed, by clearing the folder and pinning the others again', async () => {
    const gone = new RpcError(-32602, 'arguments[0].textDocument.uri: /home/dev/shop/gone.go does not exist (and is not open)');
    const t = setup({ 'contextLs.pins': pins, 'contextLs.unpin': (a: unknown) => ((a as { all?: boolean }).all ? { ...pins, pins: [] } : Promise.reject(gone)), 'contextLs.pin': pins });
    t.tree.setVisible(true);
    await tick();
    harness.answers = [undefined];
    await t.run(ExtensionCommands.pinsUnpin, t.nodes()[1]);
    const [ask] = harness.called('showWarningMessage');
    assert.strictEqual(
      ask[0],
      'gone.go:3-3 cannot be unpinned alone while its file is gone (file: "gone.go" does not exist). Clear all pins of shop and pin the 2 others again?',
    );
    assert.deepStrictEqual(ask.slice(1), [{ modal: true }, CLEAR_AND_REPIN]);
    assert.deepStrictEqual(t.client.sent.map((s) => s.command), ['contextLs.pins', 'contextLs.unpin'], 'declined: nothing else asked');
    assert.strictEqual(t.d.pinsChanges, 0);

    harness.answers = [CLEAR_AND_REPIN];
    await t.run(ExtensionCommands.pinsUnpin, t.nodes()[1]);
    assert.deepStrictEqual(
      t.client.sent.slice(2, 6).map((s) => [s.command, s.args]),
      [
        ['contextLs.unpin', { textDocument: { uri: 'file:///home/dev/shop/gone.go' }, range: pins.pins[1].location.range }],
        ['contextLs.unpin', { all: true, folder: 'file:///home/dev/shop' }],
        ['contextLs.pin', { textDocument: { uri: 'file:///home/dev/shop/retry/backoff.py' } }],
        ['contextLs.pin', { textDocument: { uri: 'file:///home/dev/shop/cmd/shop/main.go' }, range: pins.pins[2].location.range }],
      ],
    );
    assert.strictEqual(t.d.pinsChanges, 1);
    assert.deepStrictEqual(harness.called('showErrorMessage'), []);
    t.view.dispose();
  });

  it('Clear All asks first, then unpins every folder that has pins', async () => {
    const t = setup(
      {
        'contextLs.pins': (a: unknown) => ((a as { folder: string }).folder.endsWith('/lib') ? { folder: 'file:///home/dev/lib', pins: [] } : pins),
        'contextLs.unpin': { pins: [] },
      },
      ['shop', 'lib'],
    );
    harness.answers = [undefined];
    await t.run(ExtensionCommands.pinsClearAll);
    const [ask] = harness.called('showWarningMessage');
    assert.deepStrictEqual(ask, ['Unpin all 3 pins of shop? Context packs stop including them.', { modal: true }, CLEAR_ALL]);
    assert.ok(!t.client.sent.some((s) => s.command === 'contextLs.unpin'), 'declined: nothing unpinned');
    harness.answers = [CLEAR_ALL];
    await t.run(ExtensionCommands.pinsClearAll);
    assert.deepStrictEqual(
      t.client.sent.filter((s) => s.command === 'contextLs.unpin').map((s) => s.args),
      [{ all: true, folder: 'file:///home/dev/shop' }],
    );
    assert.strictEqual(t.d.pinsChanges, 1);
    t.view.dispose();
  });
});
