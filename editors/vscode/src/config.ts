// Settings of the extension: which ones the server reads and how they
// travel (initializationOptions, workspace/didChangeConfiguration and
// answers to workspace/configuration), and the client-side ones.
//
// This module does not import 'vscode': it works on a ConfigReader, so the
// unit tests and the real-server test build exactly what the extension sends.

/** The settings section of the extension and of the server. */
export const SECTION = 'contextLs';

/** The keys the server understands (lsp.Settings); anything else it reports as unknown. */
export const SERVER_KEYS = ['dbPath', 'ignore', 'maxFileSize', 'embeddings', 'modelPath', 'budgetTokens', 'logLevel'] as const;

/** One key of SERVER_KEYS. */
export type ServerKey = (typeof SERVER_KEYS)[number];

/** Pack formats the server renders. */
export const PACK_FORMATS = ['markdown', 'xml', 'json', 'plain'] as const;

/** One of PACK_FORMATS. */
export type PackFormat = (typeof PACK_FORMATS)[number];

/** The layers of one setting, as vscode.WorkspaceConfiguration.inspect returns them. */
export interface SettingLayers {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** What the extension needs from vscode.WorkspaceConfiguration (section contextLs). */
export interface ConfigReader {
  inspect(key: string): SettingLayers | undefined;
}

/** The value the user set explicitly (folder over workspace over user), or undefined. */
export function explicitValue(reader: ConfigReader, key: string): unknown {
  const l = reader.inspect(key);
  if (l === undefined) {
    return undefined;
  }
  if (l.workspaceFolderValue !== undefined) {
    return l.workspaceFolderValue;
  }
  if (l.workspaceValue !== undefined) {
    return l.workspaceValue;
  }
  return l.globalValue;
}

/** The value in effect: the explicit one, else the declared default. */
export function effectiveValue(reader: ConfigReader, key: string): unknown {
  const v = explicitValue(reader, key);
  return v !== undefined ? v : reader.inspect(key)?.defaultValue;
}

/**
 * The server's settings as the client pushes them: every server key, with
 * the user's explicit value or null. The server gives a null key its
 * default, which leaves a value from .context-ls.toml alone, so a setting
 * the user never touched does not override the workspace file, and a
 * setting the user removes goes back to its default.
 */
export function serverSettings(reader: ConfigReader): Record<ServerKey, unknown> {
  const out = {} as Record<ServerKey, unknown>;
  for (const key of SERVER_KEYS) {
    const v = explicitValue(reader, key);
    out[key] = v === undefined ? null : v;
  }
  return out;
}

/** initializationOptions: the explicitly set server settings only. */
export function initializationOptions(reader: ConfigReader): Partial<Record<ServerKey, unknown>> {
  const out: Partial<Record<ServerKey, unknown>> = {};
  const all = serverSettings(reader);
  for (const key of SERVER_KEYS) {
    if (all[key] !== null) {
      out[key] = all[key];
    }
  }
  return out;
}

/** An item of a workspace/configuration request. */
export interface ConfigurationItem {
  scopeUri?: string;
  section?: string;
}

/**
 * Answers a workspace/configuration request for the server's section with
 * the server's keys only (the extension's own settings, such as serverPath,
 * would be reported as unknown). Items of other sections are answered by
 * other(item, index).
 */
export function answerConfiguration(
  items: ConfigurationItem[],
  readerFor: (scopeUri: string | undefined) => ConfigReader,
  other: (item: ConfigurationItem, index: number) => unknown,
): unknown[] {
  return items.map((item, index) => {
    if (item.section === SECTION) {
      return serverSettings(readerFor(item.scopeUri));
    }
    if (item.section !== undefined && item.section.startsWith(SECTION + '.')) {
      const key = item.section.slice(SECTION.length + 1);
      if ((SERVER_KEYS as readonly string[]).includes(key)) {
        const v = explicitValue(readerFor(item.scopeUri), key);
        return v === undefined ? null : v;
      }
    }
    return other(item, index);
  });
}

/** The pack format setting; anything unknown falls back to markdown. */
export function packFormat(reader: ConfigReader): PackFormat {
  const v = effectiveValue(reader, 'packFormat');
  return typeof v === 'string' && (PACK_FORMATS as readonly string[]).includes(v) ? (v as PackFormat) : 'markdown';
}

/** Hits asked for by Search Codebase: the setting clamped to 1..100 (default 30). */
export function searchResults(reader: ConfigReader): number {
  const v = effectiveValue(reader, 'searchResults');
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    return 30;
  }
  return Math.min(100, Math.max(1, Math.round(v)));
}

/** The serverPath setting, trimmed ('' when unset or not a string). */
export function serverPathSetting(reader: ConfigReader): string {
  const v = effectiveValue(reader, 'serverPath');
  return typeof v === 'string' ? v.trim() : '';
}
