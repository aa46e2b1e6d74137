import * as assert from 'assert';
import * as vscode from 'vscode';
import { locationOf, NodeTree, OPEN_RESULT, treeItem } from '../src/nodeTree';
import { ResultNode } from '../src/results';
import { harness } from './stub/vscode';

const loc = { uri: 'file:///home/dev/shop/inventory/stock.go', range: { start: { line: 24, character: 0 }, end: { line: 30, character: 1 } } };

describe('side panel trees', () => {
  beforeEach(() => harness.reset());

  it('a view is told of new nodes when it shows old ones, even collapsed since, and not before it was ever shown', () => {
    const tree = new NodeTree<string>('contextLs.test');
    const view = harness.treeViews[0];
    let told = 0;
    tree.onDidChangeTreeData(() => told++);
    tree.set([{ label: 'a' }]);
    assert.strictEqual(told, 0, 'never shown: it fetches when shown');
    assert.deepStrictEqual(tree.getChildren().map((n) => n.label), ['a']);
    view.visible = false; // shown once, then collapsed: it keeps what it fetched
    tree.set([{ label: 'b' }]);
    assert.strictEqual(told, 1);
    tree.set([{ label: 'c' }]);
    assert.strictEqual(told, 1, 'nothing fetched since the last change: one event is enough');
    view.visible = true;
    tree.set([{ label: 'd' }]);
    assert.strictEqual(told, 2);
    tree.dispose();
  });

  it('tree items carry the actions\' context and open their location on click', () => {
    const node: ResultNode<string> = { label: 'inventory/stock.go:25-31', description: 'the selection', icon: 'lock', location: loc, contextValue: 'packItem', value: 'x' };
    const item = treeItem(node);
    assert.strictEqual(item.contextValue, 'packItem');
    assert.strictEqual((item.iconPath as vscode.ThemeIcon).id, 'lock');
    assert.deepStrictEqual(item.command, { command: OPEN_RESULT, title: 'Open', arguments: [loc] });
    assert.strictEqual(item.collapsibleState, vscode.TreeItemCollapsibleState.None);
    assert.strictEqual(treeItem({ label: 'group', children: [node] }).collapsibleState, vscode.TreeItemCollapsibleState.Expanded);
    assert.strictEqual(locationOf(loc), loc, 'a click passes the location');
    assert.strictEqual(locationOf(node), loc, 'the context menu passes the node');
    assert.strictEqual(locationOf({ label: 'no place' }), undefined);
  });
});
