// activate() under the stubbed 'vscode' module with a server that cannot be
// found: the commands exist, the status bar and the notification say what is
// wrong, and the notification's button opens the install instructions.

import * as assert from 'assert';
import * as vscode from 'vscode';
import { ExtensionCommands } from '../src/commands';
import { activate, deactivate } from '../src/extension';
import { startFailed } from '../src/server';
import { INSTALL_URL } from '../src/serverPath';
import { harness } from './stub/vscode';

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('activate without a server binary', () => {
  beforeEach(() => harness.reset());
  afterEach(async () => {
    await deactivate();
  });

  it('registers the commands, explains the problem and links to the install instructions', async () => {
    harness.configuration.serverPath = { defaultValue: '', globalValue: '/nonexistent/context-ls' };
    harness.answers = ['Install Instructions'];
    const context = { subscriptions: [] as { dispose(): unknown }[] };
    await activate(context as unknown as vscode.ExtensionContext);
    await tick();

    assert.deepStrictEqual([...harness.commandHandlers.keys()].sort(), Object.values(ExtensionCommands).sort());
    const [notification] = harness.called('showErrorMessage');
    assert.deepStrictEqual(notification, [
      'context-ls: contextLs.serverPath is "/nonexistent/context-ls", but there is no executable file at /nonexistent/context-ls.',
      'Install Instructions',
      'Open Settings',
    ]);
    await tick();
    const [opened] = harness.called('openExternal');
    assert.strictEqual(String(opened[0]), INSTALL_URL);

    const status = harness.statusItems[0];
    assert.strictEqual(status.text, '$(error) context-ls');
    assert.strictEqual(status.command, ExtensionCommands.restartServer);

    await harness.commandHandlers.get(ExtensionCommands.findCallers)!();
    assert.strictEqual(harness.called('showErrorMessage').length, 2);
    assert.match(harness.called('showErrorMessage')[1][0] as string, /^context-ls: contextLs\.serverPath is "\/nonexistent\/context-ls", but there is no executable file/);
    context.subscriptions.forEach((d) => d.dispose());
  });

  it('a server path set after the server was not found is tried at once, without asking', async () => {
    harness.configuration.serverPath = { defaultValue: '', globalValue: '/nonexistent/context-ls' };
    const context = { subscriptions: [] as { dispose(): unknown }[] };
    await activate(context as unknown as vscode.ExtensionContext);
    await tick();
    assert.strictEqual(harness.called('showErrorMessage').length, 1);
    harness.configuration.serverPath = { defaultValue: '', globalValue: '/nonexistent/other-context-ls' };
    harness.changeConfiguration('contextLs.serverPath');
    await tick();
    assert.deepStrictEqual(harness.called('showInformationMessage'), [], 'nothing runs: there is nothing to restart');
    const errors = harness.called('showErrorMessage');
    assert.strictEqual(errors.length, 2);
    assert.match(errors[1][0] as string, /contextLs\.serverPath is "\/nonexistent\/other-context-ls", but there is no executable file/);
    context.subscriptions.forEach((d) => d.dispose());
  });

  it('a failed start is a reason without the prefix its messages add', () => {
    const reason = startFailed(new Error('Pending response rejected since connection got disposed'));
    assert.strictEqual(reason, 'starting the server failed: Pending response rejected since connection got disposed');
    assert.strictEqual(startFailed({ message: ' ' }), 'starting the server failed: unknown error');
  });

  it('with nothing on PATH, says so and offers the settings', async () => {
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent-dir';
    try {
      harness.answers = ['Open Settings'];
      const context = { subscriptions: [] as { dispose(): unknown }[] };
      await activate(context as unknown as vscode.ExtensionContext);
      await tick();
      assert.match(harness.called('showErrorMessage')[0][0] as string, /not on PATH and contextLs\.serverPath is not set/);
      assert.deepStrictEqual(harness.called('executeCommand'), [['workbench.action.openSettings', 'contextLs.serverPath']]);
      context.subscriptions.forEach((d) => d.dispose());
    } finally {
      process.env.PATH = saved;
    }
  });
});
