// The machinery of the end-to-end test: a real VS Code (code-server,
// installed by scripts/install-code-server.sh) with the freshly packaged
// extension, driven through its web UI by Debian's headless Chromium under
// playwright-core. Everything lives in one temporary directory and one
// process group, both removed when the test ends.

import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Browser, chromium, Locator, Page } from 'playwright-core';

/** The code-server release the install script pins. */
export const CODE_SERVER_VERSION = '4.100.3';

/** Where scripts/install-code-server.sh puts code-server. */
export function codeServerDir(): string {
  const env = process.env.CONTEXT_LS_CODE_SERVER;
  if (env !== undefined && env !== '') {
    return env;
  }
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'context-ls', `code-server-${CODE_SERVER_VERSION}`);
}

/** The browser the test drives (Debian's chromium). */
export const CHROMIUM = process.env.CONTEXT_LS_CHROMIUM || '/usr/bin/chromium';

/**
 * Chromium flags for a machine without a network: no background
 * connections, no sandbox (the test may run as root).
 */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** User settings every run starts with: quiet, offline, no welcome page. */
export const BASE_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.enableExperiments': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'security.workspace.trust.enabled': false,
  'git.enabled': false,
  'chat.commandCenter.enabled': false,
  'editor.hover.delay': 200,
  'editor.minimap.enabled': false,
  'files.autoSave': 'off',
  'window.title': 'VS Code: ${rootName}',
  // View title actions (Copy Pack, Clear All Pins, …) always shown, not only under the pointer.
  'workbench.view.alwaysShowHeaderActions': true,
};

/** A code-server process in its own process group. */
export class CodeServer {
  readonly url: string;
  private exited = false;

  private constructor(
    private readonly proc: ChildProcess,
    url: string,
  ) {
    this.url = url;
    proc.on('exit', () => {
      this.exited = true;
    });
  }

  /** Runs `code-server --install-extension vsix` with the given directories. */
  static installExtension(dir: string, vsix: string, userDataDir: string, extensionsDir: string, env: NodeJS.ProcessEnv = process.env): void {
    execFileSync(
      process.execPath,
      [path.join(dir, 'out', 'node', 'entry.js'), '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--install-extension', vsix],
      { stdio: 'pipe', timeout: 120_000, env },
    );
  }

  /**
   * Starts code-server on a free loopback port without auth; resolves once
   * it listens. baseEnv is the environment it and everything it starts (the
   * extension host, the language server) get, besides the test's own
   * variables below.
   */
  static async start(dir: string, userDataDir: string, extensionsDir: string, logFile: string, baseEnv: NodeJS.ProcessEnv = process.env): Promise<CodeServer> {
    const args = [
      path.join(dir, 'out', 'node', 'entry.js'),
      '--bind-addr',
      '127.0.0.1:0',
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
    ];
    const env: NodeJS.ProcessEnv = {
      ...baseEnv,
      // No extension gallery: the machine has no network, and the test
      // installs its extension from a file.
      EXTENSIONS_GALLERY: '{}',
      // Keep code-server's own config out of the user's home.
      XDG_CONFIG_HOME: path.join(userDataDir, 'config'),
      XDG_DATA_HOME: path.join(userDataDir, 'data'),
    };
    const proc = spawn(process.execPath, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const log: string[] = [];
    const out = fs.createWriteStream(logFile);
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`code-server did not listen within 60 s; log: ${logFile}`)), 60_000);
      const onData = (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        out.write(text);
        log.push(text);
        const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(log.join(''));
        if (m !== null) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      proc.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`code-server exited (${code}) before listening; log: ${logFile}`));
      });
    });
    proc.stdout!.removeAllListeners('data');
    proc.stderr!.removeAllListeners('data');
    proc.stdout!.on('data', (c: Buffer) => out.write(c));
    proc.stderr!.on('data', (c: Buffer) => out.write(c));
    return new CodeServer(proc, url);
  }

  /** The process group id (code-server, its extension host and the language server). */
  get pgid(): number {
    return this.proc.pid!;
  }

  /** Stops the whole process group: SIGTERM, then SIGKILL after 5 s. */
  async stop(): Promise<void> {
    const pg = this.pgid;
    const signal = (s: NodeJS.Signals) => {
      try {
        process.kill(-pg, s);
      } catch {
        // the group is gone
      }
    };
    signal('SIGTERM');
    const end = Date.now() + 5000;
    while (Date.now() < end && groupMembers(pg).length > 0) {
      await sleep(100);
    }
    signal('SIGKILL');
    const hard = Date.now() + 5000;
    while (Date.now() < hard && groupMembers(pg).length > 0) {
      await sleep(100);
    }
    if (!this.exited) {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Ends a run: closes the browser, stops code-server's whole process group
 * (failing when a process is left behind) and removes the run's temporary
 * directory ("" or undefined for what was never made).
 */
export async function tearDown(browser: Browser | undefined, server: CodeServer | undefined, tmp: string): Promise<void> {
  await browser?.close();
  if (server !== undefined) {
    const pg = server.pgid;
    await server.stop();
    if (groupMembers(pg).length > 0) {
      throw new Error(`processes left behind by code-server: ${groupMembers(pg).join(', ')}`);
    }
  }
  if (tmp !== '') {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Pids of the live (not zombie) processes of a process group, from /proc. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z' && Number(fields[2]) === pgid) {
        out.push(Number(name));
      }
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** The command lines (argv) of a process group's processes whose executable is exe. */
export function commandLinesOf(pgid: number, exe: string): string[][] {
  const want = fs.realpathSync(exe);
  const out: string[][] = [];
  for (const pid of groupMembers(pgid)) {
    try {
      if (fs.realpathSync(`/proc/${pid}/exe`) === want) {
        out.push(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((s) => s !== ''));
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Launches headless Chromium. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/** The status bar item of the extension. */
export const STATUS_ITEM = '[id="context-ls.context-ls.contextLs.status"]';

/**
 * Page-side recorder of what the status bar item and notifications said,
 * installed before the workbench loads, so short-lived states (a flash of
 * "0 files", a doubled progress entry) are seen even between two polls.
 */
const RECORDER = `
(() => {
  const statusLog = [];
  const notes = [];
  window.__contextLs = { statusLog, notes };
  let last = '';
  const seen = new Set();
  const look = () => {
    const item = document.querySelector('${STATUS_ITEM}');
    const bar = document.querySelector('[id="workbench.parts.statusbar"]');
    if (item) {
      const text = (item.textContent || '').trim();
      const all = bar ? Array.from(bar.querySelectorAll('.statusbar-item')).map((e) => (e.textContent || '').trim()).filter((t) => t !== '').join(' | ') : '';
      const key = text + ' || ' + all;
      if (key !== last) {
        last = key;
        statusLog.push({ t: Date.now(), text, all });
      }
    }
    for (const n of document.querySelectorAll('.notification-list-item-message')) {
      const text = (n.textContent || '').trim();
      if (text !== '' && !seen.has(text)) {
        seen.add(text);
        notes.push(text);
      }
    }
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['aria-label'] });
})();
`;

/** One entry of the status bar log. */
export interface StatusEntry {
  t: number;
  /** The extension's item. */
  text: string;
  /** Every item of the status bar, joined with " | ". */
  all: string;
}

/** The VS Code workbench in a page. */
export class Workbench {
  constructor(readonly page: Page) {}

  /** Opens a page on the workbench of folder and waits for the status bar. */
  static async open(browser: Browser, url: string, folder: string): Promise<Workbench> {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    const page = await ctx.newPage();
    // Generous: a step that passes waits only as long as it takes, and a
    // loaded two-core machine once needed more than 15 s for a pack's first
    // answer (two steps failed there, and passed on a quiet run right after).
    page.setDefaultTimeout(30_000);
    await page.addInitScript(RECORDER);
    await page.goto(`${url}/?folder=${encodeURIComponent(folder)}`);
    await page.locator('[id="workbench.parts.statusbar"]').waitFor({ timeout: 90_000 });
    return new Workbench(page);
  }

  /** The extension's status bar item. */
  status(): Locator {
    return this.page.locator(STATUS_ITEM);
  }

  /** What the status bar said so far, oldest first. */
  async statusLog(): Promise<StatusEntry[]> {
    return this.page.evaluate(() => (window as unknown as { __contextLs: { statusLog: StatusEntry[] } }).__contextLs.statusLog);
  }

  /** Every notification text shown so far. */
  async notificationLog(): Promise<string[]> {
    return this.page.evaluate(() => (window as unknown as { __contextLs: { notes: string[] } }).__contextLs.notes);
  }

  /** A notification toast whose message matches. */
  notification(message: RegExp | string): Locator {
    return this.page.locator('.notification-toast').filter({ has: this.page.locator('.notification-list-item-message', { hasText: message }) });
  }

  /** Closes every notification toast. */
  async clearNotifications(): Promise<void> {
    await this.runCommand('Notifications: Clear All Notifications');
    await this.page.locator('.notification-toast').first().waitFor({ state: 'detached', timeout: 10_000 }).catch(() => undefined);
  }

  /** The quick input widget (command palette, quick open, pickers). */
  quickInput(): Locator {
    return this.page.locator('.quick-input-widget');
  }

  /**
   * Presses Enter in the quick input's own text box. Through the page's
   * keyboard a widget that closed meanwhile (focus taken by a notification
   * on a loaded machine) would let the key reach the editor behind it and
   * split a line of the fixture; the box is waited for and focused instead.
   */
  async quickEnter(timeout = 5000): Promise<void> {
    await this.quickInput().locator('input').press('Enter', { timeout });
  }

  /** Labels of the editor tabs with unsaved changes. */
  async dirtyTabs(): Promise<string[]> {
    return this.page.locator('.tabs-container .tab.dirty .label-name').allTextContents();
  }

  /** Puts every editor with unsaved changes back to its file on disk. */
  async revertDirty(): Promise<void> {
    const tab = this.page.locator('.tabs-container .tab.dirty').first();
    for (let n = 0; n < 10 && (await tab.count()) > 0; n++) {
      await tab.click();
      await this.runCommand('File: Revert File');
    }
  }

  /** Rows of the visible quick input list. */
  quickRows(): Locator {
    return this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  }

  /**
   * Opens the quick input with a key (F1: commands, Control+P: files) and
   * types text into it. Tried again when the widget does not come up or
   * goes away before the text is in: a picker that is closing (and puts
   * its editor back) can swallow the key or close the new one.
   */
  async quickOpen(key: string, text: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    for (let attempt = 0; ; attempt++) {
      await this.page.keyboard.press('Escape');
      await this.page.keyboard.press(key);
      try {
        await input.waitFor({ state: 'visible', timeout: 3000 });
        await input.fill(text, { timeout: 3000 });
        return;
      } catch (err) {
        if (attempt === 2) {
          throw err;
        }
      }
    }
  }

  /**
   * Runs a command from the palette by its exact title ("Context: Find
   * Callers"). The palette can close under the pointer (a notification or
   * the previous command's picker taking focus on a loaded machine), which
   * leaves its row in the page but hidden: the palette is opened again then.
   */
  async runCommand(title: string): Promise<void> {
    const row = this.quickRows().filter({ has: this.page.locator('.label-name', { hasText: exact(title) }) }).first();
    for (let attempt = 0; ; attempt++) {
      await this.quickOpen('F1', `>${title}`);
      try {
        await row.waitFor({ state: 'visible', timeout: 5000 });
        await row.click({ timeout: 5000 });
        return;
      } catch (err) {
        if (attempt === 2) {
          throw err;
        }
      }
    }
  }

  /**
   * Opens a workspace file through Quick Open and waits for its editor.
   * Quick Open lists recent files until the typed filter applies, and its
   * rows are reused when it does, so a click can land on another file:
   * Enter is pressed once the filtered list (its matches highlighted) puts
   * the file first. Tried again when another editor comes up all the same.
   */
  async openFile(rel: string): Promise<void> {
    const base = path.basename(rel);
    const dir = path.dirname(rel);
    for (let attempt = 0; ; attempt++) {
      await this.quickOpen('Control+P', rel);
      const first = this.quickRows()
        .first()
        .filter({ has: this.page.locator('.label-name', { hasText: exact(base) }) })
        .filter({ has: this.page.locator('.label-description', { hasText: exact(dir) }) })
        .filter({ has: this.page.locator('.label-name .highlight') });
      try {
        await first.waitFor({ timeout: 5000 });
        await this.quickEnter();
        await this.activeTab(base).waitFor({ timeout: 5000 });
        await this.page.locator('.editor-instance .monaco-editor.focused').waitFor({ timeout: 5000 });
        return;
      } catch (err) {
        if (attempt === 2) {
          throw err;
        }
      }
    }
  }

  /**
   * Changes a setting the way a person does: the Settings editor, searched
   * for the setting's id, in the User or Workspace tab, its text box
   * filled. title is what the editor calls it ("Budget Tokens").
   */
  async setSetting(id: string, title: string, value: string, scope: 'User' | 'Workspace' = 'User'): Promise<void> {
    await this.runCommand('Preferences: Open User Settings');
    await this.page.locator('.settings-editor .settings-header .monaco-editor.focused').waitFor();
    await this.page.keyboard.type(id);
    if (scope !== 'User') {
      await this.page.locator('.settings-editor .settings-tabs-widget .action-label', { hasText: exact(scope) }).click();
    }
    const item = this.page.locator('.setting-item-contents').filter({ has: this.page.locator('.setting-item-label', { hasText: exact(title) }) });
    const input = item.locator('.setting-item-control input');
    await input.fill(value);
    await input.press('Tab');
    await this.runCommand('View: Close Editor');
    await this.page.locator('.settings-editor').waitFor({ state: 'detached' });
  }

  /** The active editor tab whose label is name. */
  activeTab(name: string): Locator {
    return this.page.locator('.tabs-container .tab.active').filter({ has: this.page.locator('.label-name', { hasText: exact(name) }) });
  }

  /** Moves the cursor to a 1-based line and column with Go to Line (":" in Quick Open). */
  async gotoLine(line: number, column: number): Promise<void> {
    await this.quickOpen('Control+P', `:${line}:${column}`);
    await this.quickRows().filter({ hasText: new RegExp(`line ${line}\\b`, "i") }).first().waitFor();
    await this.quickEnter();
    await this.cursorAt(line);
  }

  /**
   * Waits until the status bar says the cursor is on a 1-based line (its
   * column counts tabs as their width, so it is not compared).
   */
  async cursorAt(line: number): Promise<void> {
    await this.page.locator('[id="status.editor.selection"]').filter({ hasText: new RegExp(`Ln ${line}, Col \\d+`) }).waitFor();
  }

  /** A view of the side panel, by the name in its header ("Context Pack"). */
  view(name: string): Locator {
    return this.page.locator('.pane').filter({ has: this.page.locator('.pane-header .title', { hasText: exact(name) }) });
  }

  /** The rows of a view's tree. */
  viewRows(name: string): Locator {
    return this.view(name).locator('.monaco-list-row');
  }

  /** Expands or collapses a view of the side panel (a click on its header, as a person does). */
  async setViewExpanded(name: string, expanded: boolean): Promise<void> {
    const header = this.view(name).locator('.pane-header');
    if ((await header.getAttribute('aria-expanded')) !== String(expanded)) {
      await header.click();
    }
    await this.view(name).locator(`.pane-header[aria-expanded="${expanded}"]`).waitFor();
    // The panel animates the change: wait until the view keeps its size.
    let last = '';
    for (const end = Date.now() + 3000; Date.now() < end; await sleep(150)) {
      const box = JSON.stringify(await this.view(name).boundingBox());
      if (box === last) {
        return;
      }
      last = box;
    }
  }

  /** Clicks a view's title action by its title ("Copy Pack"). */
  async viewAction(name: string, title: string): Promise<void> {
    const view = this.view(name);
    await view.locator('.pane-header').hover();
    await view.locator(`.pane-header .action-label[aria-label="${title}"]`).click();
  }

  /** Clicks a row's inline action by its title ("Drop"): shown while the pointer is over the row. */
  async rowAction(row: Locator, title: string): Promise<void> {
    await row.hover();
    await row.locator(`.actions .action-label[aria-label="${title}"]`).click();
  }

  /** Drags the side bar's edge so that it is width pixels wide (long descriptions fit in screenshots). */
  async widenSideBar(width: number): Promise<void> {
    const box = await this.page.locator('[id="workbench.parts.sidebar"]').boundingBox();
    if (box === null) {
      throw new Error('the side bar is not shown');
    }
    const y = box.y + box.height / 2;
    await this.page.mouse.move(box.x + box.width, y);
    await this.page.mouse.down();
    await this.page.mouse.move(box.x + width, y, { steps: 5 });
    await this.page.mouse.up();
  }

  /**
   * Drags the edge above a view of the side panel by dy pixels (down: the
   * view above grows). Waits for the panel's layout to settle: a view just
   * expanded or collapsed moves the others for a moment.
   */
  async moveViewTop(name: string, dy: number): Promise<void> {
    let seen = '';
    for (const end = Date.now() + 5000; Date.now() < end; await sleep(100)) {
      const top = (await this.view(name).boundingBox())?.y;
      const edges = await this.page.locator('[id="workbench.parts.sidebar"] .monaco-sash.horizontal').evaluateAll((els) =>
        els.map((e) => e.getBoundingClientRect()).map((r) => ({ x: r.x + r.width / 2, y: r.y + r.height / 2, h: r.height })),
      );
      seen = `its top: ${top}; edges: ${JSON.stringify(edges)}`;
      const edge = edges.find((e) => e.h > 0 && top !== undefined && Math.abs(e.y - top) <= 4);
      if (edge !== undefined) {
        await this.page.mouse.move(edge.x, edge.y);
        await this.page.mouse.down();
        await this.page.mouse.move(edge.x, edge.y + dy, { steps: 5 });
        await this.page.mouse.up();
        return;
      }
    }
    throw new Error(`no edge above the ${name} view (${seen})`);
  }

  /** Text of the system clipboard (the page has clipboard-read permission). */
  async clipboard(): Promise<string> {
    return this.page.evaluate(() => navigator.clipboard.readText());
  }

  /** Saves a screenshot. */
  async screenshot(file: string): Promise<void> {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    await this.page.screenshot({ path: file });
  }
}

/** A RegExp matching s exactly. */
export function exact(s: string): RegExp {
  return new RegExp(`^${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
}

/** Copies a directory tree. */
export function copyDir(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true });
}

/** Writes the user settings of a user-data-dir. */
export function writeUserSettings(userDataDir: string, settings: Record<string, unknown>): void {
  const dir = path.join(userDataDir, 'User');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings, null, 2));
}
