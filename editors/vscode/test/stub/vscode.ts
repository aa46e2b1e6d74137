// A stand-in for the 'vscode' module (VS Code itself cannot be downloaded
// here): the subset of the API the extension uses, recording what the
// extension does and answering dialogs from scripted responses. Tests reach
// the recordings through `harness`.

/* eslint-disable @typescript-eslint/no-explicit-any */

type Listener<T> = (e: T) => any;

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  static from(...ds: { dispose(): any }[]): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (l: Listener<T>): Disposable => {
    this.listeners.push(l);
    return new Disposable(() => {
      this.listeners = this.listeners.filter((x) => x !== l);
    });
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      l(e);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(start: Position, end: Position) {
    this.start = start;
    this.end = end;
  }
}

export class Selection extends Range {
  constructor(
    readonly anchor: Position,
    readonly active: Position,
  ) {
    const before = anchor.line < active.line || (anchor.line === active.line && anchor.character <= active.character);
    super(before ? anchor : active, before ? active : anchor);
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    private readonly text: string,
  ) {}
  static parse(s: string): Uri {
    const i = s.indexOf(':');
    const scheme = i > 0 ? s.slice(0, i) : 'file';
    let rest = i > 0 ? s.slice(i + 1) : s;
    if (rest.startsWith('//')) {
      rest = rest.slice(2);
      rest = rest.slice(rest.indexOf('/'));
    }
    return new Uri(scheme, decodeURIComponent(rest), s);
  }
  static file(p: string): Uri {
    return new Uri('file', p, 'file://' + p.split('/').map(encodeURIComponent).join('/'));
  }
  static from(c: { scheme: string; path: string }): Uri {
    return new Uri(c.scheme, c.path, `${c.scheme}:${c.path}`);
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return this.text;
  }
}

export class Location {
  constructor(
    readonly uri: Uri,
    readonly range: Range,
  ) {}
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  readonly token = { isCancellationRequested: false, onCancellationRequested: this.emitter.event };
  cancel(): void {
    if (!this.token.isCancellationRequested) {
      this.token.isCancellationRequested = true;
      this.emitter.fire();
    }
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}
export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}
export enum TextEditorRevealType {
  Default = 0,
  InCenter = 1,
  InCenterIfOutsideViewport = 2,
  AtTop = 3,
}
export enum ViewColumn {
  Active = -1,
  One = 1,
}

/** A scripted QuickPick: tests type into it and accept items. */
export class FakeQuickPick<T> {
  title = '';
  placeholder = '';
  value = '';
  busy = false;
  items: T[] = [];
  activeItems: T[] = [];
  selectedItems: T[] = [];
  matchOnDescription = false;
  matchOnDetail = false;
  shown = false;
  disposed = false;
  private readonly valueE = new EventEmitter<string>();
  private readonly activeE = new EventEmitter<readonly T[]>();
  private readonly acceptE = new EventEmitter<void>();
  private readonly hideE = new EventEmitter<void>();
  readonly onDidChangeValue = this.valueE.event;
  readonly onDidChangeActive = this.activeE.event;
  readonly onDidAccept = this.acceptE.event;
  readonly onDidHide = this.hideE.event;
  show(): void {
    this.shown = true;
    harness.quickPicks.push(this);
  }
  hide(): void {
    this.hideE.fire();
  }
  dispose(): void {
    this.disposed = true;
  }
  /** Test helper: the user types text. */
  type(text: string): void {
    this.value = text;
    this.valueE.fire(text);
  }
  /** Test helper: the user moves to an item. */
  highlight(item: T): void {
    this.activeItems = [item];
    this.activeE.fire([item]);
  }
  /** Test helper: the user presses Enter on an item. */
  accept(item: T): void {
    this.activeItems = [item];
    this.selectedItems = [item];
    this.acceptE.fire();
  }
}

interface Call {
  fn: string;
  args: any[];
}

/** Recordings and scripted answers, reset before each test. */
export const harness = {
  calls: [] as Call[],
  /** Answers for showInformationMessage / showWarningMessage / showErrorMessage / showInputBox, in order. */
  answers: [] as (string | undefined)[],
  clipboard: '',
  quickPicks: [] as FakeQuickPick<any>[],
  statusItems: [] as any[],
  treeViews: [] as any[],
  configuration: {} as Record<string, { defaultValue?: unknown; globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown }>,
  commandHandlers: new Map<string, (...args: any[]) => any>(),
  configListeners: new Set<(e: { affectsConfiguration(section: string): boolean }) => void>(),
  /** Test helper: the settings under these keys (contextLs.x) changed. */
  changeConfiguration(...keys: string[]): void {
    const e = { affectsConfiguration: (section: string) => keys.some((k) => k === section || k.startsWith(section + '.')) };
    this.configListeners.forEach((l) => l(e));
  },
  reset(): void {
    this.configListeners.clear();
    this.calls = [];
    this.answers = [];
    this.clipboard = '';
    this.quickPicks = [];
    this.statusItems = [];
    this.treeViews = [];
    this.configuration = {};
    this.commandHandlers.clear();
    window.activeTextEditor = undefined;
    window.visibleTextEditors = [];
    workspace.workspaceFolders = undefined;
  },
  /** Calls of one function. */
  called(fn: string): any[][] {
    return this.calls.filter((c) => c.fn === fn).map((c) => c.args);
  },
};

function record(fn: string, args: any[]): void {
  harness.calls.push({ fn, args });
}

function answer(fn: string, args: any[]): Promise<string | undefined> {
  record(fn, args);
  return Promise.resolve(harness.answers.length > 0 ? harness.answers.shift() : undefined);
}

/** A minimal text editor for tests; edit() records what was inserted where (editable false refuses). */
export function fakeEditor(uri: any, anchor: any, active: any, editable = true): any {
  return {
    document: { uri, languageId: 'go' },
    selection: new Selection(anchor, active),
    viewColumn: ViewColumn.One,
    revealRange: (...args: any[]) => record('revealRange', args),
    edit: (cb: (b: { insert(at: any, text: string): void }) => void) => {
      cb({ insert: (at: any, text: string) => record('insert', [uri, at, text]) });
      return Promise.resolve(editable);
    },
  };
}

export class ThemeIcon {
  constructor(readonly id: string) {}
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

export class TreeItem {
  description?: string;
  tooltip?: string;
  iconPath?: ThemeIcon;
  contextValue?: string;
  command?: { command: string; title: string; arguments?: any[] };
  constructor(
    readonly label: string,
    readonly collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}

export const window = {
  activeTextEditor: undefined as any,
  showInformationMessage: (...args: any[]) => answer('showInformationMessage', args),
  showWarningMessage: (...args: any[]) => answer('showWarningMessage', args),
  showErrorMessage: (...args: any[]) => answer('showErrorMessage', args),
  showInputBox: (...args: any[]) => answer('showInputBox', args),
  createQuickPick: () => new FakeQuickPick<any>(),
  showTextDocument: (...args: any[]) => {
    record('showTextDocument', args);
    return Promise.resolve(window.activeTextEditor);
  },
  withProgress: (opts: any, task: (p: any, token: any) => Promise<any>) => {
    record('withProgress', [opts]);
    return task({ report: () => undefined }, new CancellationTokenSource().token);
  },
  createStatusBarItem: (...args: any[]) => {
    const item = { args, text: '', tooltip: '', command: '', name: '', backgroundColor: undefined, show: () => undefined, dispose: () => undefined };
    harness.statusItems.push(item);
    return item;
  },
  createOutputChannel: (name: string) => ({ name, appendLine: () => undefined, dispose: () => undefined }),
  visibleTextEditors: [] as any[],
  createTreeView: (id: string, options: any) => {
    const visibility = new EventEmitter<{ visible: boolean }>();
    const view = {
      id,
      options,
      visible: false,
      description: undefined as string | undefined,
      message: undefined as string | undefined,
      onDidChangeVisibility: visibility.event,
      /** Test helper: the user shows or hides the view. */
      setVisible(v: boolean) {
        view.visible = v;
        visibility.fire({ visible: v });
      },
      dispose: () => undefined,
    };
    harness.treeViews.push(view);
    return view;
  },
};

export const env = {
  clipboard: {
    writeText: (s: string) => {
      record('clipboard.writeText', [s]);
      harness.clipboard = s;
      return Promise.resolve();
    },
    readText: () => Promise.resolve(harness.clipboard),
  },
  openExternal: (...args: any[]) => {
    record('openExternal', args);
    return Promise.resolve(true);
  },
};

export const commands = {
  executeCommand: (...args: any[]) => {
    record('executeCommand', args);
    return Promise.resolve(undefined);
  },
  registerCommand: (id: string, fn: (...args: any[]) => any) => {
    harness.commandHandlers.set(id, fn);
    return new Disposable(() => harness.commandHandlers.delete(id));
  },
};

export const workspace = {
  workspaceFolders: undefined as { uri: Uri; name: string; index: number }[] | undefined,
  isTrusted: true,
  getConfiguration: (_section?: string) => ({
    inspect: (key: string) => ({ key, ...(harness.configuration[key] ?? {}) }),
  }),
  openTextDocument: (...args: any[]) => {
    record('openTextDocument', args);
    return Promise.resolve({ uri: args[0] });
  },
  registerTextDocumentContentProvider: () => new Disposable(),
  onDidChangeConfiguration: (l: (e: { affectsConfiguration(section: string): boolean }) => void) => {
    harness.configListeners.add(l);
    return new Disposable(() => harness.configListeners.delete(l));
  },
};

export const languages = {
  setTextDocumentLanguage: (doc: any, lang: string) => {
    record('setTextDocumentLanguage', [lang]);
    return Promise.resolve(doc);
  },
};

// Classes vscode-languageclient extends at load time; the extension never
// instantiates them in unit tests.
export class CallHierarchyItem {}
export class CodeLens {}
export class CompletionItem {}
export class DocumentLink {}
export class InlayHint {}
export class SymbolInformation {}
export class TypeHierarchyItem {}
export class CancellationError extends Error {}
export class CodeAction {}
export class Diagnostic {}
