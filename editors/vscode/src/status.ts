// The status bar item: indexing progress while $/progress operations run,
// then files and embeddings state from contextLs.stats; a click shows the
// stats (or restarts a stopped server).

import * as vscode from 'vscode';
import { ProgressValue, StatsResult } from './protocol';
import { errorMessage, isCancelled } from './render';
import { ServerState, StatusModel } from './statusModel';

/** Fetches contextLs.stats; undefined when no client is running. */
export type StatsFetcher = () => Promise<StatsResult> | undefined;

/** How often the index state is refreshed while nothing reports progress. */
export const POLL_MS = 30_000;

/** Delay between a progress end and the stats refresh it triggers. */
export const REFRESH_DELAY_MS = 300;

/** The status bar controller. */
export class StatusBar implements vscode.Disposable {
  readonly model = new StatusModel();
  private readonly item: vscode.StatusBarItem;
  private poll: ReturnType<typeof setInterval> | undefined;
  private pending: ReturnType<typeof setTimeout> | undefined;
  private fetching = false;

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
    if (this.model.progress(token, value)) {
      this.refreshSoon();
    }
    this.render();
  }

  /** Refreshes stats shortly (coalescing bursts). */
  refreshSoon(): void {
    if (this.pending !== undefined) {
      clearTimeout(this.pending);
    }
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.refresh();
    }, REFRESH_DELAY_MS);
  }

  /** Asks the server for stats now; overlapping refreshes are skipped. */
  refresh(): void {
    if (this.fetching) {
      return;
    }
    const p = this.fetchStats();
    if (p === undefined) {
      return;
    }
    this.fetching = true;
    p.then(
      (stats) => {
        this.model.setStats(stats);
      },
      (err) => {
        if (!isCancelled(err)) {
          this.model.setStatsError(errorMessage('reading stats', err));
        }
      },
    ).finally(() => {
      this.fetching = false;
      this.render();
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
    this.item.dispose();
  }
}
