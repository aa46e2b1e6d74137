import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { isExecutableFile, resolveServerPath, ResolveEnv } from '../src/serverPath';

function env(over: Partial<ResolveEnv> & { files?: string[] }): ResolveEnv {
  const files = new Set(over.files ?? []);
  return {
    platform: over.platform ?? 'linux',
    pathEnv: over.pathEnv ?? '/usr/local/bin:/usr/bin',
    pathExt: over.pathExt,
    home: over.home ?? '/home/u',
    workspaceFolders: over.workspaceFolders ?? ['/work/proj'],
    extensionDir: over.extensionDir,
    isExecutable: (p) => files.has(p),
  };
}

describe('resolveServerPath', () => {
  const cases: { name: string; setting: string; env: ResolveEnv; want: { path?: string; source?: string; error?: RegExp } }[] = [
    { name: 'PATH, first match wins', setting: '', env: env({ files: ['/usr/bin/context-ls', '/usr/local/bin/context-ls'] }), want: { path: '/usr/local/bin/context-ls', source: 'PATH' } },
    { name: 'PATH, later directory', setting: '', env: env({ files: ['/usr/bin/context-ls'] }), want: { path: '/usr/bin/context-ls', source: 'PATH' } },
    { name: 'empty PATH entries are not the current directory', setting: '', env: env({ pathEnv: ':/usr/bin', files: ['context-ls'] }), want: { error: /not on PATH/ } },
    { name: 'missing everywhere', setting: '', env: env({ pathEnv: undefined }), want: { error: /not on PATH and contextLs.serverPath is not set/ } },
    {
      name: 'the server a platform package carries, before PATH',
      setting: '',
      env: env({ extensionDir: '/ext/context-ls', files: ['/ext/context-ls/server/bin/context-ls', '/usr/bin/context-ls'] }),
      want: { path: '/ext/context-ls/server/bin/context-ls', source: 'bundled' },
    },
    { name: 'a package without a server: PATH', setting: '', env: env({ extensionDir: '/ext/context-ls', files: ['/usr/bin/context-ls'] }), want: { path: '/usr/bin/context-ls', source: 'PATH' } },
    {
      name: 'the setting before the carried server',
      setting: '/opt/cl/context-ls',
      env: env({ extensionDir: '/ext/context-ls', files: ['/ext/context-ls/server/bin/context-ls', '/opt/cl/context-ls'] }),
      want: { path: '/opt/cl/context-ls', source: 'setting' },
    },
    {
      name: 'Windows: the carried server.exe',
      setting: '',
      env: env({ platform: 'win32', extensionDir: 'C:\\ext', pathEnv: 'C:\\bin', files: ['C:\\ext\\server\\bin\\context-ls.exe'] }),
      want: { path: 'C:\\ext\\server\\bin\\context-ls.exe', source: 'bundled' },
    },
    { name: 'absolute setting', setting: '/opt/cl/context-ls', env: env({ files: ['/opt/cl/context-ls', '/usr/bin/context-ls'] }), want: { path: '/opt/cl/context-ls', source: 'setting' } },
    { name: 'absolute setting missing is an error, not a PATH fallback', setting: '/opt/none', env: env({ files: ['/usr/bin/context-ls'] }), want: { error: /no executable file at \/opt\/none/ } },
    { name: 'home expansion', setting: '~/go/bin/context-ls', env: env({ files: ['/home/u/go/bin/context-ls'] }), want: { path: '/home/u/go/bin/context-ls', source: 'setting' } },
    { name: '${workspaceFolder}', setting: '${workspaceFolder}/bin/context-ls', env: env({ files: ['/work/proj/bin/context-ls'] }), want: { path: '/work/proj/bin/context-ls', source: 'setting' } },
    { name: '${workspaceFolder} without folders', setting: '${workspaceFolder}/bin/x', env: env({ workspaceFolders: [] }), want: { error: /no folder is open/ } },
    { name: 'relative to the first folder', setting: 'bin/context-ls', env: env({ files: ['/work/proj/bin/context-ls'] }), want: { path: '/work/proj/bin/context-ls', source: 'setting' } },
    { name: 'bare name looked up on PATH', setting: 'context-ls-dev', env: env({ files: ['/usr/bin/context-ls-dev'] }), want: { path: '/usr/bin/context-ls-dev', source: 'PATH' } },
    { name: 'bare name missing', setting: 'nope', env: env({}), want: { error: /"nope", which is not an executable on PATH/ } },
    {
      name: 'Windows PATHEXT',
      setting: '',
      env: env({ platform: 'win32', pathEnv: 'C:\\tools;C:\\bin', pathExt: '.COM;.EXE', files: ['C:\\bin\\context-ls.exe'] }),
      want: { path: 'C:\\bin\\context-ls.exe', source: 'PATH' },
    },
    {
      name: 'Windows setting without extension',
      setting: 'C:\\cl\\context-ls',
      env: env({ platform: 'win32', files: ['C:\\cl\\context-ls.exe'] }),
      want: { path: 'C:\\cl\\context-ls.exe', source: 'setting' },
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const got = resolveServerPath(tc.setting, tc.env);
      if (tc.want.error !== undefined) {
        assert.ok(!got.ok, `want an error, got ${JSON.stringify(got)}`);
        assert.match(got.message, tc.want.error);
        assert.strictEqual(got.fromSetting, tc.setting !== '');
      } else {
        assert.deepStrictEqual(got, { ok: true, path: tc.want.path, source: tc.want.source });
      }
    });
  }

  it('checks real files: executable, not executable, directory, missing', function () {
    if (process.platform === 'win32') {
      this.skip();
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cls-path-'));
    try {
      const exe = path.join(dir, 'exe');
      const plain = path.join(dir, 'plain');
      fs.writeFileSync(exe, '#!/bin/sh\n', { mode: 0o755 });
      fs.writeFileSync(plain, 'x', { mode: 0o644 });
      assert.strictEqual(isExecutableFile(exe), true);
      assert.strictEqual(isExecutableFile(plain), process.getuid?.() === 0 ? isRootExecutable(plain) : false);
      assert.strictEqual(isExecutableFile(dir), false);
      assert.strictEqual(isExecutableFile(path.join(dir, 'missing')), false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

// root passes access(X_OK) only when some execute bit is set.
function isRootExecutable(p: string): boolean {
  return (fs.statSync(p).mode & 0o111) !== 0;
}
