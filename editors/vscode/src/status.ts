// The status bar item: indexing progress while $/progress operations run,
// then files and embeddings state from contextLs.stats; a click shows the
// stats (or restarts a stopped server).

import * as vscode from 'vscode';
import { ProgressValue, StatsAnswer } from './protocol';
import { errorMessage, isCancelled } from './render';
import { ServerState, StatusModel } from './statusModel';

/** Fetches contextLs.stats; undefined when no client is running. */
export type StatsFetcher = () => Promise<StatsAnswer> | undefined;

/** How often the index state is refreshed while nothing reports progress. */
export const POLL_MS = 30_000;

/** Delay between a progress end and the stats refresh it triggers. */
export const REFRESH_DELAY_MS = 300;

/** How often stats are refreshed while they say a folder is being indexed. */
export const INDEXING_POLL_MS = 1000;

/** How often stats are refreshed while they say embeddings are being computed. */
export const EMBEDDING_POLL_MS = 3000;

/** The end of a $/progress operation. */
export interface ProgressEnd {
  title: string;
  message?: string;
}

/** The status bar controller. */
export class StatusBar implements vscode.Disposable {
  readonly model = new StatusModel();
  private readonly item: vscode.StatusBarItem;
  private poll: ReturnType<typeof setInterval> | undefined;
  private pending: ReturnType<typeof setTimeout> | undefined;
  private fetching = false;
  private again = false;
  private readonly titles = new Map<string, string>();
  private readonly endedE = new vscode.EventEmitter<ProgressEnd>();
  /** Fires when a $/progress operation ends. */
  readonly onDidEndProgress = this.endedE.event;

  constructor(private readonly fetchStats: StatsFetcher) {
    this.item = vscode.window.createStatusBarItem('contextLs.status', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'context-ls';
    this.render();
    this.item.show();
  }

  /** Records the server's state; starting polling when it runs. */
  setServer(state: ServerState, detail = ''): void {
    this.model.setServer(state, detail);
    if (state === 'running') {
      if (this.poll === undefined) {
        this.poll = setInterval(() => {
          if (!this.model.busy()) {
            this.refresh();
          }
        }, POLL_MS);
      }
      this.refresh();
    } else if (this.poll !== undefined) {
      clearInterval(this.poll);
      this.poll = undefined;
    }
    this.render();
  }

  /** Applies one $/progress value (the language client's middleware calls this). */
  progress(token: string | number, value: ProgressValue): void {
    const key = String(token);
    if (value.kind === 'begin') {
      this.titles.set(key, value.title);
    }
    if (this.model.progress(token, value)) {
      this.refreshSoon();
    }
    if (value.kind === 'end') {
      const title = this.titles.get(key);
      this.titles.delete(key);
      if (title !== undefined) {
        this.endedE.fire({ title, message: value.message });
      }
    }
    this.render();
  }

  /** Refreshes stats after delayMs (coalescing bursts). */
  refreshSoon(delayMs = REFRESH_DELAY_MS): void {
    if (this.pending !== undefined) {
      clearTimeout(this.pending);
    }
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.refresh();
    }, delayMs);
  }

  /**
   * Asks the server for stats now. A refresh asked for while one is in
   * flight runs when it answers, and so does one whose answer turned out to
   * predate the end of an operation.
   */
  refresh(): void {
    if (this.fetching) {
      this.again = true;
      return;
    }
    const p = this.fetchStats();
    if (p === undefined) {
      return;
    }
    this.fetching = true;
    const stamp = this.model.stamp();
    p.then(
      (stats) => {
        if (!this.model.setStats(stats, stamp)) {
          this.again = true;
        } else if (this.model.statsIndexing()) {
          this.refreshSoon(INDEXING_POLL_MS);
        } else if (this.model.statsEmbedding()) {
          this.refreshSoon(EMBEDDING_POLL_MS);
        }
      },
      (err) => {
        if (!isCancelled(err)) {
          this.model.setStatsError(errorMessage('reading stats', err));
        }
      },
    ).finally(() => {
      this.fetching = false;
      this.render();
      if (this.again) {
        this.again = false;
        this.refresh();
      }
    });
  }

  private render(): void {
    const v = this.model.view();
    this.item.text = v.text;
    this.item.tooltip = v.tooltip;
    this.item.command = v.command;
    this.item.backgroundColor = v.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    if (this.poll !== undefined) {
      clearInterval(this.poll);
    }
    if (this.pending !== undefined) {
      clearTimeout(this.pending);
    }
    this.endedE.dispose();
    this.item.dispose();
  }
}
