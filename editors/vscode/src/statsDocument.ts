// A read-only virtual document for Show Index Stats: no webview, no save
// prompt on close, and the Markdown preview works on it.

import * as vscode from 'vscode';

/** The URI scheme of the extension's virtual documents. */
export const SCHEME = 'context-ls';

/** The stats document's URI. */
export const STATS_URI = vscode.Uri.from({ scheme: SCHEME, path: '/index-stats.md' });

/** Serves the stats document's text. */
export class StatsDocument implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private text = '# context-ls index\n\nNo statistics yet.\n';
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return uri.path === STATS_URI.path ? this.text : '';
  }

  /** Replaces the text and shows the document. */
  async show(markdown: string): Promise<void> {
    this.text = markdown;
    this.changed.fire(STATS_URI);
    const doc = await vscode.workspace.openTextDocument(STATS_URI);
    await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    await vscode.window.showTextDocument(doc, { preview: true });
  }

  dispose(): void {
    this.changed.dispose();
  }
}
