// A read-only virtual document for Show Index Stats, shown rendered in the
// Markdown preview (no save prompt on close); as Markdown source only when
// the preview is not available (the built-in Markdown extension disabled).

import * as vscode from 'vscode';

/** The URI scheme of the extension's virtual documents. */
export const SCHEME = 'context-ls';

/** The stats document's URI. */
export const STATS_URI = vscode.Uri.from({ scheme: SCHEME, path: '/index-stats.md' });

/** The built-in command that opens a rendered Markdown preview of a document. */
export const MARKDOWN_PREVIEW = 'markdown.showPreview';

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
    try {
      await vscode.commands.executeCommand(MARKDOWN_PREVIEW, STATS_URI);
    } catch {
      await vscode.window.showTextDocument(doc, { preview: true });
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
