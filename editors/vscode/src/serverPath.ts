// Finding the context-ls binary: the contextLs.serverPath setting, then the
// server a platform package carries (server/bin/context-ls inside the
// extension, the release archive's content), then PATH. Pure apart from the
// injected file check, so every rule is unit-tested.

import * as fs from 'fs';
import * as path from 'path';

/** The binary's name on PATH. */
export const BINARY_NAME = 'context-ls';

/** Where the install instructions are (the README's Editors section). */
export const INSTALL_URL = 'https://github.com/context-ls/context-ls#editors';

/** What resolveServerPath looks at besides the setting. */
export interface ResolveEnv {
  platform: NodeJS.Platform;
  /** The PATH environment variable. */
  pathEnv: string | undefined;
  /** PATHEXT (Windows). */
  pathExt?: string;
  /** The user's home directory, for ~. */
  home: string;
  /** Workspace folder paths; the first one anchors relative settings and ${workspaceFolder}. */
  workspaceFolders: string[];
  /** The extension's own directory: a platform package carries the server in server/bin. */
  extensionDir?: string;
  /** Whether p is an executable regular file. */
  isExecutable(p: string): boolean;
}

/** The outcome of resolveServerPath. */
export type Resolution =
  | { ok: true; path: string; source: 'setting' | 'bundled' | 'PATH' }
  | { ok: false; message: string; fromSetting: boolean };

/** The host's ResolveEnv: process environment and the real file system. */
export function hostEnv(workspaceFolders: string[], extensionDir?: string): ResolveEnv {
  return {
    extensionDir,
    platform: process.platform,
    pathEnv: process.env.PATH ?? process.env.Path,
    pathExt: process.env.PATHEXT,
    home: process.env.HOME ?? process.env.USERPROFILE ?? '',
    workspaceFolders,
    isExecutable: isExecutableFile,
  };
}

/** Whether p is a regular file the user may execute (any regular file on Windows). */
export function isExecutableFile(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) {
      return false;
    }
    if (process.platform !== 'win32') {
      fs.accessSync(p, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves the server binary. A setting with a path separator is a file
 * (~ and ${workspaceFolder} expanded, relative to the first workspace
 * folder); a bare name in the setting is looked up on PATH like the
 * default name context-ls. A setting that names nothing executable is an
 * error: the setting is not silently ignored.
 */
export function resolveServerPath(setting: string, env: ResolveEnv): Resolution {
  const p = env.platform === 'win32' ? path.win32 : path.posix;
  const wanted = setting.trim();
  if (wanted !== '') {
    let expanded = wanted;
    if (expanded.includes('${workspaceFolder}')) {
      if (env.workspaceFolders.length === 0) {
        return { ok: false, fromSetting: true, message: `contextLs.serverPath "${wanted}" uses \${workspaceFolder}, but no folder is open.` };
      }
      expanded = expanded.split('${workspaceFolder}').join(env.workspaceFolders[0]);
    }
    if (expanded === '~' || expanded.startsWith('~/') || expanded.startsWith('~\\')) {
      expanded = p.join(env.home, expanded.slice(1));
    }
    const hasSep = expanded.includes('/') || (env.platform === 'win32' && expanded.includes('\\'));
    if (!hasSep) {
      const found = searchPath(expanded, env);
      if (found !== undefined) {
        return { ok: true, path: found, source: 'PATH' };
      }
      return { ok: false, fromSetting: true, message: `contextLs.serverPath is "${wanted}", which is not an executable on PATH.` };
    }
    if (!p.isAbsolute(expanded)) {
      if (env.workspaceFolders.length === 0) {
        return { ok: false, fromSetting: true, message: `contextLs.serverPath "${wanted}" is relative, but no folder is open to resolve it against.` };
      }
      expanded = p.resolve(env.workspaceFolders[0], expanded);
    }
    for (const candidate of withExtensions(expanded, env)) {
      if (env.isExecutable(candidate)) {
        return { ok: true, path: candidate, source: 'setting' };
      }
    }
    return { ok: false, fromSetting: true, message: `contextLs.serverPath is "${wanted}", but there is no executable file at ${expanded}.` };
  }
  const bundled = bundledServer(env);
  if (bundled !== undefined) {
    return { ok: true, path: bundled, source: 'bundled' };
  }
  const found = searchPath(BINARY_NAME, env);
  if (found !== undefined) {
    return { ok: true, path: found, source: 'PATH' };
  }
  return {
    ok: false,
    fromSetting: false,
    message: 'The context-ls server was not found: it is not on PATH and contextLs.serverPath is not set.',
  };
}

/** The server a platform package carries (server/bin/context-ls[.exe]), if this one does. */
export function bundledServer(env: ResolveEnv): string | undefined {
  if (env.extensionDir === undefined || env.extensionDir === '') {
    return undefined;
  }
  const p = env.platform === 'win32' ? path.win32 : path.posix;
  const exe = p.join(env.extensionDir, 'server', 'bin', env.platform === 'win32' ? `${BINARY_NAME}.exe` : BINARY_NAME);
  return env.isExecutable(exe) ? exe : undefined;
}

/** Looks name up in the PATH directories, in order. */
function searchPath(name: string, env: ResolveEnv): string | undefined {
  const p = env.platform === 'win32' ? path.win32 : path.posix;
  const sep = env.platform === 'win32' ? ';' : ':';
  for (const dir of (env.pathEnv ?? '').split(sep)) {
    if (dir === '') {
      continue; // an empty entry means the current directory: never trusted here
    }
    for (const candidate of withExtensions(p.join(dir, name), env)) {
      if (env.isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/** file itself, then, on Windows, file with each PATHEXT extension. */
function withExtensions(file: string, env: ResolveEnv): string[] {
  if (env.platform !== 'win32') {
    return [file];
  }
  const exts = (env.pathExt ?? '.EXE;.CMD;.BAT').split(';').filter((e) => e !== '');
  return [file, ...exts.map((e) => file + e.toLowerCase())];
}
