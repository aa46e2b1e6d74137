import * as assert from 'assert';
import { ProgressValue, StatsAnswer } from '../src/protocol';
import { FolderStats } from '../src/render';
import { StatusModel } from '../src/statusModel';
import { fixture } from './golden';

describe('StatusModel', () => {
  it('follows progress, then shows the index state', () => {
    const m = new StatusModel();
    assert.strictEqual(m.view().text, '$(sync~spin) context-ls');
    m.setServer('running');
    assert.strictEqual(m.view().tooltip, 'Waiting for index statistics…');

    const steps: { token: string | number; value: ProgressValue; text: string; ended: boolean }[] = [
      { token: 'context-ls/progress/1', value: { kind: 'begin', title: 'Indexing shop', percentage: 0 }, text: '$(sync~spin) Indexing shop', ended: false },
      { token: 'context-ls/progress/1', value: { kind: 'report', message: '120/400 files', percentage: 30 }, text: '$(sync~spin) Indexing shop 120/400 files', ended: false },
      { token: 7, value: { kind: 'begin', title: 'Re-indexing' }, text: '$(sync~spin) Indexing shop 120/400 files (+1)', ended: false },
      { token: 'unknown', value: { kind: 'report', message: 'ignored' }, text: '$(sync~spin) Indexing shop 120/400 files (+1)', ended: false },
      { token: 'context-ls/progress/1', value: { kind: 'end', message: '400/400 files' }, text: '$(sync~spin) Re-indexing', ended: false },
      { token: 'unknown', value: { kind: 'end' }, text: '$(sync~spin) Re-indexing', ended: false },
      { token: '7', value: { kind: 'end' }, text: '$(sync~spin) Re-indexing', ended: true },
    ];
    for (const s of steps) {
      assert.strictEqual(m.progress(s.token, s.value), s.ended, `${JSON.stringify(s.value)}: ended`);
      assert.strictEqual(m.view().text, s.text, JSON.stringify(s.value));
    }

    const stats = fixture<StatsAnswer>('stats.json');
    m.setStats(stats);
    const v = m.view();
    assert.strictEqual(v.text, '$(sync~spin) Indexing shop-tools 1/3 files', 'a folder still indexing says so instead of a partial count');
    assert.strictEqual(v.command, 'contextLs.showStats');
    assert.match(v.tooltip, /\/home\/dev\/shop-tools: 3 files, 9 definitions, 4 chunks; indexing running; embeddings unavailable: no ONNX Runtime library found \(searched a\|b\)/);

    m.setStats({ folders: [stats.folders[0]] });
    assert.strictEqual(m.view().text, '$(database) 12,345 files · embeddings ready');
    m.setStatsError('context-ls: reading stats failed: boom');
    assert.match(m.view().tooltip, /Last refresh failed: context-ls: reading stats failed: boom/);
    assert.strictEqual(m.view().warning, false, 'old stats stay on screen');
  });

  it('never shows stats that predate the end of indexing, nor a count while the first index runs', () => {
    const m = new StatusModel();
    m.setServer('running');
    const early = m.stamp(); // asked when the server started, before indexing began
    m.progress('p', { kind: 'begin', title: 'Indexing shop' });
    m.progress('p', { kind: 'report', message: '0/6 files', percentage: 0 });
    assert.ok(m.progress('p', { kind: 'end', message: '6/6 files' }));
    const none = (state: string): StatsAnswer => ({
      folders: [
        {
          ...fixture<StatsAnswer>('stats.json').folders[0],
          folder: 'file:///w/shop',
          files: 0,
          indexing: { state, done: 0, total: 6, complete: 0 } as FolderStats['indexing'],
        },
      ],
    });
    assert.strictEqual(m.setStats(none('done'), early), false, 'an answer to a request made before the end is dropped');
    assert.strictEqual(m.view().text, '$(sync~spin) Indexing shop', 'what finished stays until fresh stats arrive');
    assert.ok(m.setStats(none('running'), m.stamp()));
    assert.strictEqual(m.view().text, '$(sync~spin) Indexing shop 0/6 files', 'a folder still indexing shows progress, not "0 files"');
    assert.ok(m.statsIndexing());
    const done = none('done');
    done.folders[0].files = 6;
    done.folders[0].indexing = { state: 'done', done: 6, total: 6, complete: 1 } as FolderStats['indexing'];
    assert.ok(m.setStats(done));
    assert.match(m.view().text, /^\$\(database\) 6 files · embeddings /);
    assert.ok(!m.statsIndexing());
    for (const [state, busy] of [['loading', true], ['embedding', true], ['ready', false], ['unavailable', false], ['off', false]] as const) {
      done.folders[0].embeddings = { ...done.folders[0].embeddings, state };
      assert.ok(m.setStats(done));
      assert.strictEqual(m.statsEmbedding(), busy, `embeddings ${state}: refreshed until ready`);
    }
  });

  it('stopped and missing servers invite a restart and drop running progress', () => {
    const m = new StatusModel();
    m.setServer('running');
    m.progress('t', { kind: 'begin', title: 'Indexing shop' });
    m.setServer('stopped', 'exit code 2');
    assert.deepStrictEqual(m.view(), {
      text: '$(debug-disconnect) context-ls',
      tooltip: 'The context-ls server stopped: exit code 2. Click to restart it.',
      command: 'contextLs.restartServer',
      warning: true,
    });
    assert.ok(!m.busy());
    m.setServer('missing', 'The context-ls server was not found: it is not on PATH and contextLs.serverPath is not set.');
    assert.strictEqual(m.view().command, 'contextLs.restartServer');
    assert.match(m.view().tooltip, /not on PATH.*Click to try again\./);
  });

  it('a stats error before any stats is a warning', () => {
    const m = new StatusModel();
    m.setServer('running');
    m.setStatsError('context-ls: reading stats failed: no workspace folder is open');
    assert.deepStrictEqual(m.view(), {
      text: '$(warning) context-ls',
      tooltip: 'context-ls: reading stats failed: no workspace folder is open',
      command: 'contextLs.showStats',
      warning: true,
    });
  });
});
