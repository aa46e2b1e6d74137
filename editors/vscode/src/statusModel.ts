// What the status bar item says: indexing progress from $/progress while
// work runs, then the index state from contextLs.stats. Pure state; the
// StatusBar controller (status.ts) shows it.

import { embeddingsText, embeddingsWord, FolderStats, num, uriToPath } from './render';
import { ProgressValue, StatsAnswer } from './protocol';

/** The server process as the extension sees it. */
export type ServerState = 'starting' | 'running' | 'stopped' | 'missing';

/** What the status bar item shows. */
export interface StatusView {
  text: string;
  tooltip: string;
  /** The command run on click. */
  command: string;
  /** Draw the item as a warning. */
  warning: boolean;
}

/** Commands the item runs on click. */
export const STATUS_COMMANDS = { stats: 'contextLs.showStats', restart: 'contextLs.restartServer' } as const;

interface Running {
  title: string;
  message?: string;
  percentage?: number;
}

/** The status bar's state. */
export class StatusModel {
  private readonly running = new Map<string, Running>();
  /** The operation whose end made the stats stale; shown until fresh stats arrive. */
  private ended: Running | undefined;
  /** Counts the times the last running operation ended: stats asked for before are stale. */
  private generation = 0;
  private stats: StatsAnswer | undefined;
  private statsError: string | undefined;
  private server: ServerState = 'starting';
  private serverDetail = '';

  /** Records the server's state; detail explains stopped and missing. */
  setServer(state: ServerState, detail = ''): void {
    this.server = state;
    this.serverDetail = detail;
    if (state !== 'running') {
      this.running.clear();
      this.ended = undefined;
    }
  }

  /** The server's state. */
  serverState(): ServerState {
    return this.server;
  }

  /** Applies one $/progress value. Returns true when the last running operation ended. */
  progress(token: string | number, value: ProgressValue): boolean {
    const key = String(token);
    switch (value.kind) {
      case 'begin':
        this.running.set(key, { title: value.title, message: value.message, percentage: value.percentage });
        return false;
      case 'report': {
        const r = this.running.get(key);
        if (r !== undefined) {
          if (value.message !== undefined) {
            r.message = value.message;
          }
          if (value.percentage !== undefined) {
            r.percentage = value.percentage;
          }
        }
        return false;
      }
      case 'end': {
        const r = this.running.get(key);
        if (r === undefined || !this.running.delete(key) || this.running.size > 0) {
          return false;
        }
        // Stats fetched while it ran are out of date: say what finished
        // until the refresh the caller starts now has answered.
        this.ended = r;
        this.generation++;
        return true;
      }
    }
  }

  /** Stamp a stats request with this; setStats drops answers to requests made before the last end. */
  stamp(): number {
    return this.generation;
  }

  /** Whether a progress operation is running. */
  busy(): boolean {
    return this.running.size > 0;
  }

  /**
   * Records stats requested at stamp (default: now). Returns false, keeping
   * nothing, when an operation ended after the request: ask again.
   */
  setStats(stats: StatsAnswer, stamp = this.generation): boolean {
    if (stamp < this.generation) {
      return false;
    }
    this.stats = stats;
    this.statsError = undefined;
    this.ended = undefined;
    return true;
  }

  /** Whether the last stats say a folder is still being indexed (the caller refreshes sooner). */
  statsIndexing(): boolean {
    return (this.stats?.folders ?? []).some(indexing);
  }

  /**
   * Whether the last stats say a folder's embeddings are loading or being
   * computed: nothing reports their end, so the caller refreshes until
   * they are ready.
   */
  statsEmbedding(): boolean {
    return (this.stats?.folders ?? []).some((f) => ['loading', 'embedding'].includes(embeddingsWord(f.embeddings)));
  }

  /** Records a failed stats request. */
  setStatsError(message: string): void {
    this.statsError = message;
    this.ended = undefined;
  }

  /** The view for the current state. */
  view(): StatusView {
    switch (this.server) {
      case 'missing':
        return {
          text: '$(error) context-ls',
          tooltip: `${this.serverDetail || 'The context-ls server was not found.'} Click to try again.`,
          command: STATUS_COMMANDS.restart,
          warning: true,
        };
      case 'stopped':
        return {
          text: '$(debug-disconnect) context-ls',
          tooltip: `The context-ls server stopped${this.serverDetail ? `: ${this.serverDetail}` : ''}. Click to restart it.`,
          command: STATUS_COMMANDS.restart,
          warning: true,
        };
      case 'starting':
        return { text: '$(sync~spin) context-ls', tooltip: 'Starting the context-ls server…', command: STATUS_COMMANDS.stats, warning: false };
      case 'running':
        break;
    }
    if (this.running.size > 0) {
      const all = [...this.running.values()];
      const first = all[0];
      const more = all.length > 1 ? ` (+${all.length - 1})` : '';
      const msg = first.message ? ` ${first.message}` : '';
      const tooltip = all
        .map((r) => `${r.title}${r.message ? `: ${r.message}` : ''}${r.percentage !== undefined ? ` (${r.percentage} %)` : ''}`)
        .join('\n');
      return { text: `$(sync~spin) ${first.title}${msg}${more}`, tooltip, command: STATUS_COMMANDS.stats, warning: false };
    }
    if (this.ended !== undefined) {
      const e = this.ended;
      return {
        text: `$(sync~spin) ${e.title}`,
        tooltip: `${e.title}: finished; reading the index statistics…`,
        command: STATUS_COMMANDS.stats,
        warning: false,
      };
    }
    if (this.stats === undefined) {
      if (this.statsError !== undefined) {
        return { text: '$(warning) context-ls', tooltip: this.statsError, command: STATUS_COMMANDS.stats, warning: true };
      }
      return { text: '$(database) context-ls', tooltip: 'Waiting for index statistics…', command: STATUS_COMMANDS.stats, warning: false };
    }
    const folders = this.stats.folders ?? [];
    const files = folders.reduce((s, f) => s + f.files, 0);
    const words = [...new Set(folders.map((f) => embeddingsWord(f.embeddings)))];
    const emb = words.length === 0 ? 'no folder' : `embeddings ${words.join('/')}`;
    const busy = folders.filter(indexing);
    const tooltip = folders
      .map(
        (f) =>
          `${uriToPath(f.folder)}: ${num(f.files)} files, ${num(f.symbols)} definitions, ${num(f.chunks)} chunks; indexing ${f.indexing?.state ?? 'unknown'}; embeddings ${embeddingsText(f.embeddings)}`,
      )
      .concat(this.statsError !== undefined ? [`Last refresh failed: ${this.statsError}`] : [])
      .concat(['Click for index stats.'])
      .join('\n');
    if (busy.length > 0) {
      // A folder's first index is still running: its file count is not
      // the workspace's yet, so say what is happening instead.
      const f = busy[0];
      const more = busy.length > 1 ? ` (+${busy.length - 1})` : '';
      const of = f.indexing.total > 0 ? ` ${num(f.indexing.done)}/${num(f.indexing.total)} files` : '';
      return { text: `$(sync~spin) Indexing ${folderName(f.folder)}${of}${more}`, tooltip, command: STATUS_COMMANDS.stats, warning: false };
    }
    return {
      text: `$(database) ${num(files)} files · ${emb}`,
      tooltip,
      command: STATUS_COMMANDS.stats,
      warning: false,
    };
  }
}

/** Whether a folder's index run is in progress. */
function indexing(f: FolderStats): boolean {
  return f.indexing !== undefined && f.indexing.state === 'running' && f.indexing.complete < 1;
}

/** The last element of a folder URI's path. */
function folderName(uri: string): string {
  const parts = uriToPath(uri).split(/[\\/]/).filter((p) => p !== '');
  return parts.length > 0 ? parts[parts.length - 1] : uri;
}
