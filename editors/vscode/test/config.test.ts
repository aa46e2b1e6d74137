import * as assert from 'assert';
import {
  answerConfiguration,
  ConfigReader,
  initializationOptions,
  packFormat,
  searchResults,
  SERVER_KEYS,
  serverPathSetting,
  serverSettings,
  SettingLayers,
} from '../src/config';

function reader(layers: Record<string, SettingLayers>): ConfigReader {
  return { inspect: (key) => layers[key] };
}

describe('config', () => {
  it('sends every server key, null when the user did not set it', () => {
    const got = serverSettings(reader({ budgetTokens: { defaultValue: 4000, globalValue: 2000 }, embeddings: { defaultValue: true } }));
    assert.deepStrictEqual(Object.keys(got).sort(), [...SERVER_KEYS].sort());
    assert.strictEqual(got.budgetTokens, 2000);
    assert.strictEqual(got.embeddings, null, 'a default is not sent as if the user chose it');
    assert.strictEqual(got.dbPath, null);
  });

  const precedence: { name: string; layers: SettingLayers; want: unknown }[] = [
    { name: 'user only', layers: { globalValue: 1 }, want: 1 },
    { name: 'workspace over user', layers: { globalValue: 1, workspaceValue: 2 }, want: 2 },
    { name: 'folder over workspace', layers: { globalValue: 1, workspaceValue: 2, workspaceFolderValue: 3 }, want: 3 },
    { name: 'explicit false kept', layers: { defaultValue: 5, globalValue: 0 }, want: 0 },
    { name: 'default only', layers: { defaultValue: 5 }, want: null },
  ];
  for (const tc of precedence) {
    it(`explicit value: ${tc.name}`, () => {
      assert.strictEqual(serverSettings(reader({ maxFileSize: tc.layers })).maxFileSize, tc.want);
    });
  }

  it('initializationOptions holds only the explicit server settings', () => {
    const got = initializationOptions(
      reader({
        ignore: { defaultValue: [], globalValue: ['*.gen.go'] },
        logLevel: { defaultValue: 'info', workspaceValue: 'debug' },
        packFormat: { defaultValue: 'markdown', globalValue: 'xml' },
        serverPath: { globalValue: '/opt/context-ls' },
        embeddings: { defaultValue: true },
      }),
    );
    assert.deepStrictEqual(got, { ignore: ['*.gen.go'], logLevel: 'debug' });
  });

  it('answers workspace/configuration with server keys only and leaves other sections to the client', () => {
    const scopes: (string | undefined)[] = [];
    const got = answerConfiguration(
      [{ section: 'contextLs' }, { section: 'editor' }, { section: 'contextLs.budgetTokens', scopeUri: 'file:///w' }, { section: 'contextLs.serverPath' }],
      (scope) => {
        scopes.push(scope);
        return reader({ budgetTokens: { globalValue: 1234 }, serverPath: { globalValue: '/x' }, packFormat: { globalValue: 'xml' } });
      },
      (item, i) => `other:${item.section}:${i}`,
    );
    const whole = got[0] as Record<string, unknown>;
    assert.strictEqual(whole.budgetTokens, 1234);
    assert.ok(!('serverPath' in whole) && !('packFormat' in whole), 'client-side settings are not sent to the server');
    assert.strictEqual(got[1], 'other:editor:1');
    assert.strictEqual(got[2], 1234);
    assert.strictEqual(got[3], 'other:contextLs.serverPath:3', 'a client-side key is not answered as a server setting');
    assert.deepStrictEqual(scopes, [undefined, 'file:///w']);
  });

  const formats: { set: unknown; want: string }[] = [
    { set: undefined, want: 'markdown' },
    { set: 'xml', want: 'xml' },
    { set: 'plain', want: 'plain' },
    { set: 'html', want: 'markdown' },
    { set: 3, want: 'markdown' },
  ];
  for (const tc of formats) {
    it(`packFormat ${JSON.stringify(tc.set)} → ${tc.want}`, () => {
      assert.strictEqual(packFormat(reader({ packFormat: { defaultValue: 'markdown', globalValue: tc.set } })), tc.want);
    });
  }

  const ks: { set: unknown; want: number }[] = [
    { set: undefined, want: 30 },
    { set: 5, want: 5 },
    { set: 0, want: 1 },
    { set: 500, want: 100 },
    { set: 7.6, want: 8 },
    { set: 'ten', want: 30 },
  ];
  for (const tc of ks) {
    it(`searchResults ${JSON.stringify(tc.set)} → ${tc.want}`, () => {
      assert.strictEqual(searchResults(reader({ searchResults: { defaultValue: 30, globalValue: tc.set } })), tc.want);
    });
  }

  it('serverPath is trimmed and non-strings are ignored', () => {
    assert.strictEqual(serverPathSetting(reader({ serverPath: { globalValue: '  /bin/x ' } })), '/bin/x');
    assert.strictEqual(serverPathSetting(reader({ serverPath: { globalValue: 42 } })), '');
    assert.strictEqual(serverPathSetting(reader({})), '');
  });
});
