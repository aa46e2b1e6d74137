// The extension's commands: each builds arguments from the editor, runs one
// server command and shows the answer (clipboard, QuickPick, peek view,
// stats document). Errors the server answers — a bad argument, an engine
// part missing from this build — are shown as they are, never thrown.

import * as vscode from 'vscode';
import { mcpRegistration } from './agents';
import { describeFilters, packArgsForQuery, packArgsForSelection, parseSearchInput, placeArgs, reindexArgs, searchArgs } from './args';
import { ConfigReader, packFormat, searchResults } from './config';
import { editorState, toLocation, workspaceFolders } from './convert';
import { packText } from './pack';
import { pickLocation } from './picker';
import {
  Commands,
  PackArgs,
  PackAnswer,
  GraphResult,
  PinsResult,
  ReindexAnswer,
  RelatedResult,
  SearchResult,
  StatsAnswer,
} from './protocol';
import {
  callEntries,
  errorMessage,
  graphOmitted,
  graphSymbols,
  hitEntry,
  isCancelled,
  LocationEntry,
  notPinnedMessage,
  packSummary,
  pinsSummary,
  isReindexEnd,
  reindexDone,
  reindexQuestion,
  relatedEntries,
  statsMarkdown,
  testEntries,
} from './render';
import { ExploreAnswers, exploreTitle, exploreTree, ResultNode } from './results';
import { ProgressEnd } from './status';

/** How commands reach the server. */
export interface ContextClient {
  /** Runs workspace/executeCommand with one argument object (none when args is undefined). */
  execute<T>(command: string, args: object | undefined, token?: vscode.CancellationToken): Promise<T>;
  /** The URI string the client uses for a document (as in didOpen). */
  uriOf(uri: vscode.Uri): string;
}

/** What the commands depend on. */
export interface CommandDeps {
  /** The running client, or undefined (the reason is then shown). */
  client(): ContextClient | undefined;
  /** Why there is no client. */
  unavailableReason(): string;
  /** The contextLs configuration section. */
  config(): ConfigReader;
  /** Shows the stats document with this Markdown. */
  showStatsDocument(markdown: string): Promise<void>;
  /** Refreshes the status bar's stats. */
  refreshStatus(): void;
  /** Fires when a server progress operation ends. */
  onDidEndProgress: vscode.Event<ProgressEnd>;
  /** The server binary in use (undefined when none was found). */
  serverPath(): string | undefined;
  /** Shows a tree in the results view. */
  showResults(title: string, nodes: ResultNode[]): Promise<void>;
  /** Tells the pins view and the pack preview that pins were added or removed. */
  pinsChanged(): void;
}

/**
 * Identifiers of the extension's commands (package.json contributes.commands).
 * None may equal a server command: the language client registers those
 * under their own names.
 */
export const ExtensionCommands = {
  copyContextForSelection: 'contextLs.copyContextForSelection',
  copyContextForQuery: 'contextLs.copyContextForQuery',
  showRelated: 'contextLs.showRelated',
  findCallers: 'contextLs.findCallers',
  findTests: 'contextLs.findTests',
  searchCodebase: 'contextLs.searchCodebase',
  pin: 'contextLs.pinSelection',
  unpin: 'contextLs.unpinSelection',
  reindexWorkspace: 'contextLs.reindexWorkspace',
  showStats: 'contextLs.showStats',
  restartServer: 'contextLs.restartServer',
  exploreDefinition: 'contextLs.exploreDefinition',
  setUpForAgents: 'contextLs.setUpForAgents',
  clearResults: 'contextLs.results.clear',
  openResult: 'contextLs.openResult',
  previewContextForSelection: 'contextLs.previewContextForSelection',
  previewContextForQuery: 'contextLs.previewContextForQuery',
  packDrop: 'contextLs.pack.drop',
  packPutBack: 'contextLs.pack.putBack',
  packPin: 'contextLs.pack.pin',
  packBudget: 'contextLs.pack.changeBudget',
  packCopy: 'contextLs.pack.copy',
  packInsert: 'contextLs.pack.insert',
  packRefresh: 'contextLs.pack.refresh',
  pinsUnpin: 'contextLs.pins.unpin',
  pinsClearAll: 'contextLs.pins.clearAll',
  pinsRefresh: 'contextLs.pins.refresh',
} as const;

/**
 * Commands registered by their owners, not by registerCommands: the
 * server's lifecycle, and the side panel's views with their actions.
 */
export const OWNED_ELSEWHERE: string[] = [
  ExtensionCommands.restartServer,
  ExtensionCommands.clearResults,
  ExtensionCommands.openResult,
  ExtensionCommands.previewContextForSelection,
  ExtensionCommands.previewContextForQuery,
  ExtensionCommands.packDrop,
  ExtensionCommands.packPutBack,
  ExtensionCommands.packPin,
  ExtensionCommands.packBudget,
  ExtensionCommands.packCopy,
  ExtensionCommands.packInsert,
  ExtensionCommands.packRefresh,
  ExtensionCommands.pinsUnpin,
  ExtensionCommands.pinsClearAll,
  ExtensionCommands.pinsRefresh,
];

/** Text of the button that opens Copy Context for Query when no file editor is active. */
export const ASK_QUERY = 'Copy Context for Query…';

/** The running client, or undefined after saying why there is none. */
export function needClient(deps: Pick<CommandDeps, 'client' | 'unavailableReason'>): ContextClient | undefined {
  const c = deps.client();
  if (c === undefined) {
    void vscode.window.showErrorMessage(`context-ls: ${deps.unavailableReason()}`);
  }
  return c;
}

/** Shows why a command failed (a cancelled request is not a failure). */
export function showError(what: string, err: unknown): void {
  if (!isCancelled(err)) {
    void vscode.window.showErrorMessage(errorMessage(what, err));
  }
}

/** Runs one server command under a window progress indicator. */
async function run<T>(client: ContextClient, title: string, command: string, args: object | undefined): Promise<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `context-ls: ${title}` }, (_p, token) =>
    client.execute<T>(command, args, token),
  );
}

/** The active file editor's state, or a message explaining what is needed. */
function activeState(client: ContextClient, what: string) {
  const st = editorState(vscode.window.activeTextEditor, (u) => client.uriOf(u));
  if (st === undefined) {
    void vscode.window.showInformationMessage(`context-ls: ${what} needs a file open in the editor (put the cursor on a definition or select code).`);
  }
  return st;
}

async function copyPack(client: ContextClient, what: string, args: object): Promise<void> {
  let res: PackAnswer;
  try {
    res = await run<PackAnswer>(client, 'building context pack', Commands.pack, args);
  } catch (err) {
    showError(what, err);
    return;
  }
  await copyPackText(res);
}

/** Puts a pack on the clipboard and says how big it is; an empty pack leaves the clipboard alone. */
export async function copyPackText(res: PackAnswer): Promise<void> {
  const text = packText(res);
  if (text === '' || (res.items ?? []).length === 0) {
    void vscode.window.showWarningMessage('context-ls: nothing relevant was found; the clipboard is unchanged.');
    return;
  }
  await vscode.env.clipboard.writeText(text);
  void vscode.window.showInformationMessage(packSummary(res));
}

/** Context: Copy Context for Selection. */
export async function copyContextForSelection(deps: CommandDeps): Promise<void> {
  const client = needClient(deps);
  if (client === undefined) {
    return;
  }
  const st = editorState(vscode.window.activeTextEditor, (u) => client.uriOf(u));
  if (st === undefined) {
    if (await offerQuery(ASK_QUERY)) {
      await copyContextForQuery(deps);
    }
    return;
  }
  await copyPack(client, 'Copy Context for Selection', packArgsForSelection(st, { format: packFormat(deps.config()) }));
}

/**
 * Says that a selection needs a file editor, with a button for the query
 * variant of the command; true when it was pressed.
 */
export async function offerQuery(button: string): Promise<boolean> {
  const pick = await vscode.window.showInformationMessage(
    'context-ls: select code or put the cursor on a definition in a file first, or describe what you need.',
    button,
  );
  return pick === button;
}

/** Asks what a pack is for: its contextLs.contextPack arguments, or undefined when dismissed. */
export async function askPackQuery(title: string, deps: Pick<CommandDeps, 'config'>): Promise<PackArgs | undefined> {
  const query = await vscode.window.showInputBox({
    title,
    prompt: 'What is the context for? Words, identifiers or a question.',
    placeHolder: 'where do we retry failed uploads?',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? 'Type what the context is for.' : undefined),
  });
  return query === undefined ? undefined : packArgsForQuery(query, { format: packFormat(deps.config()) });
}

/** Context: Copy Context for Query…. */
export async function copyContextForQuery(deps: CommandDeps): Promise<void> {
  const client = needClient(deps);
  if (client === undefined) {
    return;
  }
  const args = await askPackQuery('Copy Context for Query', deps);
  if (args !== undefined) {
    await copyPack(client, 'Copy Context for Query', args);
  }
}

/** Context: Show Related Code. */
export async function showRelated(deps: CommandDeps): Promise<void> {
  const client = needClient(deps);
  if (client === undefined) {
    return;
  }
  const st = activeState(client, 'Show Related Code');
  if (st === undefined) {
    return;
  }
  let res: RelatedResult;
  try {
    res = await run<RelatedResult>(client, 'finding related code', Commands.related, placeArgs(st));
  } catch (err) {
    showError('Show Related Code', err);
    return;
  }
  const entries = relatedEntries(res, workspaceFolders());
  if (entries.length === 0) {
    void vscode.window.showInformationMessage(`context-ls: no related code found for ${res.symbol || 'this place'}.`);
    return;
  }
  await pickLocation({ title: `Related to ${res.symbol}`, placeholder: 'Filter; Enter jumps to the code', entries });
}

/** " (N left out: name-only matches or past the limit)" when the server omitted items. */
function leftOut(res: GraphResult): string {
  const n = graphOmitted(res);
  return n > 0 ? ` (${n} left out: name-only matches or past the limit)` : '';
}

/** Shows locations in the peek view at the editor's cursor. */
async function peek(entries: LocationEntry[], editor: vscode.TextEditor): Promise<void> {
  const locations = entries.map((e) => toLocation(e.location));
  await vscode.commands.executeCommand('editor.action.peekLocations', editor.document.uri, editor.selection.active, locations, 'peek');
}

/** Context: Find Callers. */
export async function findCallers(deps: CommandDeps): Promise<void> {
  const client = needClient(deps);
  if (client === undefined) {
    return;
  }
  const editor = vscode.window.activeTextEditor;
  const st = activeState(client, 'Find Callers');
  if (st === undefined || editor === undefined) {
    return;
  }
  let res: GraphResult;
  try {
    res = await run<GraphResult>(client, 'finding callers', Commands.callers, placeArgs(st));
  } catch (err) {
    showError('Find Callers', err);
    return;
  }
  const entries = callEntries(res, workspaceFolders());
  if (entries.length === 0) {
    void vscode.window.showInformationMessage(`context-ls: no callers of ${graphSymbols(res) || 'this definition'} found${leftOut(res)}.`);
    return;
  }
  await peek(entries, editor);
}

/** Context: Find Tests. */
export async function findTests(deps: CommandDeps): Promise<void> {
  const client = needClient(deps);
  if (client === undefined) {
    return;
  }
  const editor = vscode.window.activeTextEditor;
  const st = activeState(client, 'Find Tests');
  if (st === undefined || editor === undefined) {
    return;
  }
  let res: GraphResult;
  try {
    res = await run<GraphResult>(client, 'finding tests', Commands.tests, placeArgs(st));
  } catch (err) {
    showError('Find Tests', err);
    return;
  }
  const entries = testEntries(res, workspaceFolders());
  if (entries.length === 0) {
    void vscode.window.showInformationMessage(`context-ls: no tests of ${graphSymbols(res) || 'this definition'} found${leftOut(res)}.`);
    return;
  }
  await peek(entries, editor);
}

/** Context: Search Codebase — live results as you type. */
export async function searchCodebase(deps: CommandDeps): Promise<void> {
  const client = needClient(deps);
  if (client === undefined) {
    return;
  }
  const k = searchResults(deps.config());
  let shown = false;
  await pickLocation({
    title: SEARCH_TITLE,
    placeholder: 'Words, identifiers or a question; filter with lang:go kind:function path:src/**; Enter jumps to the code',
    titleFor: (text) => {
      const filters = describeFilters(parseSearchInput(text));
      return filters === '' ? SEARCH_TITLE : `${SEARCH_TITLE} (${filters})`;
    },
    noResults: (text) => {
      const input = parseSearchInput(text);
      if (input.text === '') {
        return 'Type words to search for as well as the filters.';
      }
      const filters = describeFilters(input);
      return `No results for “${input.text}”${filters === '' ? '' : ` with ${filters}`}.`;
    },
    live: async (text, token) => {
      const args = searchArgs(text, k);
      if (args === undefined) {
        return []; // filters alone: noResults asks for words
      }
      const res = await client.execute<SearchResult>(Commands.search, args, token);
      const folders = workspaceFolders();
      return (res.hits ?? []).map((h) => hitEntry(h, folders));
    },
    onError: (err) => {
      if (!shown) {
        shown = true; // one message per picker, not one per keystroke
        showError('Search Codebase', err);
      }
    },
  });
}

/** The title of the Search Codebase picker. */
export const SEARCH_TITLE = 'Search Codebase';

/** Context: Pin / Context: Unpin. */
export async function pin(deps: CommandDeps, action: 'pin' | 'unpin'): Promise<void> {
  const client = needClient(deps);
  if (client === undefined) {
    return;
  }
  const what = action === 'pin' ? 'Pin' : 'Unpin';
  const st = activeState(client, what);
  if (st === undefined) {
    return;
  }
  try {
    const res = await run<PinsResult>(client, action === 'pin' ? 'pinning' : 'unpinning', action === 'pin' ? Commands.pin : Commands.unpin, placeArgs(st));
    deps.pinsChanged();
    void vscode.window.showInformationMessage(`context-ls: ${pinsSummary(action, res)}`);
  } catch (err) {
    const plain = action === 'unpin' ? notPinnedMessage(err) : undefined;
    if (plain !== undefined) {
      void vscode.window.showInformationMessage(plain);
      return;
    }
    showError(what, err);
  }
}

/** The confirm button of the reindex dialog. */
export const REINDEX_BUTTON = 'Re-index';

/** Context: Reindex Workspace — a dry run, a modal confirmation, then the job. */
export async function reindexWorkspace(deps: CommandDeps): Promise<void> {
  const client = needClient(deps);
  if (client === undefined) {
    return;
  }
  let dry: ReindexAnswer;
  try {
    dry = await run<ReindexAnswer>(client, 'planning reindex', Commands.reindex, reindexArgs('dryRun'));
  } catch (err) {
    showError('Reindex Workspace', err);
    return;
  }
  const answer = await vscode.window.showWarningMessage(reindexQuestion(dry), { modal: true }, REINDEX_BUTTON);
  if (answer !== REINDEX_BUTTON) {
    return;
  }
  // Listen before starting: a small job may end before its answer arrives.
  // The job reports one progress per folder; each end is told once.
  let jobId: string | undefined;
  let left = 0;
  const ended: ProgressEnd[] = [];
  const report = (): number => {
    let told = 0;
    while (jobId !== undefined && left > 0 && ended.length > 0) {
      const end = ended.shift()!;
      if (isReindexEnd(jobId, end.title, end.message)) {
        void vscode.window.showInformationMessage(reindexDone(jobId, end.title, end.message));
        told++;
        if (--left === 0) {
          sub.dispose();
        }
      }
    }
    return told;
  };
  const sub = deps.onDidEndProgress((end) => {
    ended.push(end);
    report();
  });
  try {
    const res = await client.execute<ReindexAnswer>(Commands.reindex, reindexArgs('confirm'));
    jobId = (res.folders ?? []).find((f) => f.jobId)?.jobId;
    left = Math.max(1, (res.folders ?? []).length);
    if (jobId === undefined) {
      sub.dispose();
    }
    // A job that is already over is told once, as done.
    if (report() === 0) {
      void vscode.window.showInformationMessage('context-ls: re-index started; progress is in the status bar.');
    }
    deps.refreshStatus();
  } catch (err) {
    sub.dispose();
    showError('Reindex Workspace', err);
  }
}

/** Context: Show Index Stats. */
export async function showStats(deps: CommandDeps): Promise<void> {
  const client = needClient(deps);
  if (client === undefined) {
    return;
  }
  try {
    const res = await run<StatsAnswer>(client, 'reading stats', Commands.stats, undefined);
    await deps.showStatsDocument(statsMarkdown(res, workspaceFolders()));
    deps.refreshStatus();
  } catch (err) {
    showError('Show Index Stats', err);
  }
}

/** Why a request failed, in the user's words, or undefined when it was cancelled. */
async function settle<T>(p: Promise<T>): Promise<{ value?: T; error?: string }> {
  try {
    return { value: await p };
  } catch (err) {
    if (isCancelled(err)) {
      return {};
    }
    return { error: errorMessage('asking the server', err).replace(/^context-ls: asking the server failed: /, '') };
  }
}

/** Context: Explore Definition — callers, callees, tests and related code in the results view. */
export async function exploreDefinition(deps: CommandDeps): Promise<void> {
  const client = needClient(deps);
  if (client === undefined) {
    return;
  }
  const st = activeState(client, 'Explore Definition');
  if (st === undefined) {
    return;
  }
  const args = placeArgs(st);
  const [callers, callees, tests, related] = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'context-ls: exploring' },
    () =>
      Promise.all([
        settle(client.execute<GraphResult>(Commands.callers, args)),
        settle(client.execute<GraphResult>(Commands.callees, args)),
        settle(client.execute<GraphResult>(Commands.tests, args)),
        settle(client.execute<RelatedResult>(Commands.related, args)),
      ]),
  );
  const ans: ExploreAnswers = {
    callers: callers.value,
    callees: callees.value,
    tests: tests.value,
    related: related.value,
    errors: { callers: callers.error, callees: callees.error, tests: tests.error, related: related.error },
  };
  const all = [callers, callees, tests, related];
  if (all.every((r) => r.error !== undefined)) {
    void vscode.window.showErrorMessage(`context-ls: Explore Definition failed: ${callers.error}`);
    return;
  }
  if (all.some((r) => r.value === undefined && r.error === undefined)) {
    return; // cancelled
  }
  await deps.showResults(exploreTitle(ans), exploreTree(ans, workspaceFolders()));
}

/** The button that copies the agents' registration. */
export const COPY_REGISTRATION = 'Copy';

/** Context: Set Up for Agents — the MCP registration of this workspace, ready to copy. */
export async function setUpForAgents(deps: CommandDeps): Promise<void> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length === 0) {
    void vscode.window.showInformationMessage('context-ls: open a folder first: the registration names the workspace folder the agent works on.');
    return;
  }
  const bin = deps.serverPath();
  if (bin === undefined) {
    void vscode.window.showErrorMessage(`context-ls: ${deps.unavailableReason()}`);
    return;
  }
  const json = mcpRegistration(
    bin,
    folders.map((f) => ({ name: f.name, path: f.uri.fsPath })),
  );
  const doc = await vscode.workspace.openTextDocument({ language: 'json', content: json });
  await vscode.window.showTextDocument(doc, { preview: false });
  const pick = await vscode.window.showInformationMessage(
    'context-ls: this registers the MCP server with a coding agent: Claude Code reads it from .mcp.json at the workspace root, Cursor from .cursor/mcp.json; other agents take the same mcpServers entry.',
    COPY_REGISTRATION,
  );
  if (pick === COPY_REGISTRATION) {
    await vscode.env.clipboard.writeText(json);
    void vscode.window.showInformationMessage('context-ls: MCP registration copied.');
  }
}

/** Registers every command but OWNED_ELSEWHERE (the extension owns the client's lifecycle, the results view its items). */
export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const reg = (id: string, fn: () => Promise<void>) => vscode.commands.registerCommand(id, fn);
  return [
    reg(ExtensionCommands.copyContextForSelection, () => copyContextForSelection(deps)),
    reg(ExtensionCommands.copyContextForQuery, () => copyContextForQuery(deps)),
    reg(ExtensionCommands.showRelated, () => showRelated(deps)),
    reg(ExtensionCommands.findCallers, () => findCallers(deps)),
    reg(ExtensionCommands.findTests, () => findTests(deps)),
    reg(ExtensionCommands.searchCodebase, () => searchCodebase(deps)),
    reg(ExtensionCommands.pin, () => pin(deps, 'pin')),
    reg(ExtensionCommands.unpin, () => pin(deps, 'unpin')),
    reg(ExtensionCommands.reindexWorkspace, () => reindexWorkspace(deps)),
    reg(ExtensionCommands.showStats, () => showStats(deps)),
    reg(ExtensionCommands.exploreDefinition, () => exploreDefinition(deps)),
    reg(ExtensionCommands.setUpForAgents, () => setUpForAgents(deps)),
  ];
}
