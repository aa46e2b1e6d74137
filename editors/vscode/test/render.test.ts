import * as assert from 'assert';
import { GraphResult, PackAnswer, PinsAnswer, ReindexAnswer, RelatedResult, SearchResult, StatsAnswer } from '../src/protocol';
import {
  bytes,
  callEntries,
  displayPath,
  embeddingsText,
  embeddingsWord,
  errorMessage,
  firstLine,
  graphOmitted,
  graphSymbols,
  FolderRef,
  hitEntry,
  isCancelled,
  isReindexEnd,
  LocationEntry,
  notPinnedMessage,
  num,
  packSummary,
  pinsSummary,
  reindexDone,
  reindexQuestion,
  relatedEntries,
  shorten,
  statsMarkdown,
  testEntries,
  uriToPath,
} from '../src/render';
import { fixture, golden } from './golden';

interface Results {
  folders: FolderRef[];
  multiFolders: FolderRef[];
  search: SearchResult;
  callers: GraphResult;
  tests: GraphResult;
  related: RelatedResult;
  pack: PackAnswer;
  pins: PinsAnswer;
  reindexDry: ReindexAnswer;
}

function table(entries: LocationEntry[]): string {
  return entries.map((e) => `${e.label}\n  ${e.description}\n  ${e.detail ?? ''}\n  → ${e.location.uri}#${e.location.range.start.line}`).join('\n') + '\n';
}

describe('render', () => {
  const r = fixture<Results>('results.json');

  it('search hits as QuickPick entries (golden)', () => {
    golden('search.golden', table(r.search.hits.map((h) => hitEntry(h, r.folders))) + '--- two folders\n' + table(r.search.hits.map((h) => hitEntry(h, r.multiFolders))));
  });

  it('callers: one entry per call site; a caller without sites at its definition (golden)', () => {
    const entries = callEntries(r.callers, r.folders);
    assert.strictEqual(entries.length, 4);
    assert.strictEqual(graphSymbols(r.callers), 'Stock.Reserve');
    assert.strictEqual(graphOmitted(r.callers), 1);
    assert.strictEqual(graphSymbols({ results: [] }), '');
    golden('callers.golden', table(entries));
  });

  it('tests and related items (golden)', () => {
    golden('tests-related.golden', table(testEntries(r.tests, r.folders)) + '---\n' + table(relatedEntries(r.related, r.folders)));
  });

  it('stats document (golden)', () => {
    golden('stats.md.golden', statsMarkdown(fixture<StatsAnswer>('stats.json'), r.multiFolders));
  });

  it('stats document of a server with no folder', () => {
    assert.strictEqual(statsMarkdown({ folders: [] }, []), '# context-ls index\n\nNo workspace folder is indexed.\n');
  });

  it('notification texts', () => {
    assert.strictEqual(packSummary(r.pack), 'Context copied: 1,234 / 4,000 tokens, 1 snippet.');
    assert.strictEqual(packSummary({ ...r.pack, items: [...r.pack.items, ...r.pack.items] }), 'Context copied: 1,234 / 4,000 tokens, 2 snippets.');
    assert.strictEqual(pinsSummary('pin', r.pins), 'Pinned. 2 pins now add 2,000 tokens to every context pack.');
    assert.strictEqual(pinsSummary('unpin', { pins: [], tokens: 0 }), 'Unpinned. Nothing is pinned now.');
    assert.strictEqual(pinsSummary('pin', { pins: [r.pins.pins[0]], tokens: r.pins.pins[0].tokens }), `Pinned. 1 pin now adds ${num(r.pins.pins[0].tokens)} tokens to every context pack.`);
    assert.strictEqual(pinsSummary('pin', { pins: [{ ...r.pins.pins[0], tokens: 1 }], tokens: 1 }), 'Pinned. 1 pin now adds 1 token to every context pack.');
    assert.strictEqual(reindexDone('reindex-3', 'Re-indexing', 'reindex-3 done: 6 files re-indexed, 0 removed, 0 failed'), 'context-ls: re-index done: 6 files re-indexed, 0 removed, 0 failed.');
    assert.strictEqual(reindexDone('reindex-3', 'Re-indexing shop', '306 files re-indexed, 0 removed, 0 failed'), 'context-ls: re-index of shop done: 306 files re-indexed, 0 removed, 0 failed.');
    assert.strictEqual(reindexDone('reindex-3', 'Re-indexing shop', 'reindex failed: disk full'), 'context-ls: re-index of shop failed: disk full.');
    assert.strictEqual(reindexDone('reindex-3', 'Re-indexing', 'cancelled'), 'context-ls: re-index cancelled.');
    assert.strictEqual(reindexDone('reindex-3', 'Re-indexing', undefined), 'context-ls: re-index finished.');
    assert.ok(isReindexEnd('reindex-3', 'Re-indexing', 'reindex-3 done: 1 files re-indexed'));
    assert.ok(!isReindexEnd('reindex-3', 'Re-indexing', 'reindex-2 done: 1 files re-indexed'), 'another job');
    assert.ok(isReindexEnd('reindex-3', 'Re-indexing shop', '306 files re-indexed, 0 removed, 0 failed'));
    assert.ok(!isReindexEnd('reindex-3', 'Indexing shop', '306/306 files'), 'not a re-index');
    assert.strictEqual(notPinnedMessage({ code: -32602, message: 'arguments[0]: inventory/stock.go:25-31: not pinned' }), 'context-ls: inventory/stock.go:25-31 is not pinned, so there is nothing to unpin.');
    assert.strictEqual(notPinnedMessage({ code: -32602, message: 'arguments[0]: docs/guide.md not pinned' }), 'context-ls: docs/guide.md is not pinned, so there is nothing to unpin.');
    assert.strictEqual(
      notPinnedMessage({ code: -32602, message: 'inventory/stock.go:25-31: not pinned (pins lists what is pinned)' }),
      'context-ls: inventory/stock.go:25-31 is not pinned, so there is nothing to unpin.',
    );
    assert.strictEqual(notPinnedMessage({ code: -32603, message: 'pins: disk full' }), undefined);
    assert.strictEqual(
      reindexQuestion(r.reindexDry),
      'Re-index 2 files in 2 folders and drop 1 file no longer indexable? Every selected file is parsed and written again.',
    );
    assert.strictEqual(reindexQuestion({ folders: [{ folder: 'file:///a', status: 'planned', paths: [], reindex: ['a.go'] }] }).split('?')[0], 'Re-index 1 file in 1 folder');
  });

  const paths: { name: string; uri: string; folders: FolderRef[]; want: string }[] = [
    { name: 'inside the only folder', uri: 'file:///w/a/b.go', folders: [{ uri: 'file:///w', name: 'w' }], want: 'a/b.go' },
    { name: 'folder URI with a trailing slash', uri: 'file:///w/a.go', folders: [{ uri: 'file:///w/', name: 'w' }], want: 'a.go' },
    { name: 'percent-encoded', uri: 'file:///w/my%20dir/%C3%A9t%C3%A9.go', folders: [{ uri: 'file:///w', name: 'w' }], want: 'my dir/été.go' },
    { name: 'prefix of another folder name', uri: 'file:///w2/a.go', folders: [{ uri: 'file:///w', name: 'w' }], want: '/w2/a.go' },
    { name: 'nested folders: the deepest wins', uri: 'file:///w/sub/a.go', folders: [{ uri: 'file:///w', name: 'w' }, { uri: 'file:///w/sub', name: 'sub' }], want: 'sub/a.go' },
    { name: 'outside every folder', uri: 'file:///etc/hosts', folders: [], want: '/etc/hosts' },
    { name: 'not a file URI', uri: 'untitled:Untitled-1', folders: [], want: 'untitled:Untitled-1' },
  ];
  for (const tc of paths) {
    it(`displayPath: ${tc.name}`, () => {
      assert.strictEqual(displayPath(tc.uri, tc.folders), tc.want);
    });
  }

  it('uriToPath survives a malformed file URI', () => {
    assert.strictEqual(uriToPath('file://host%zz/x'), 'file://host%zz/x');
  });

  it('text helpers', () => {
    assert.strictEqual(firstLine('\n \n  x := 1 \nmore'), 'x := 1');
    assert.strictEqual(firstLine(''), '');
    assert.strictEqual(shorten('🍎🍎🍎🍎', 3), '🍎🍎…', 'cuts between code points, never inside a surrogate pair');
    assert.strictEqual(shorten('abc', 3), 'abc');
    assert.strictEqual(num(1234567), '1,234,567');
    assert.strictEqual(num(999), '999');
    assert.strictEqual(bytes(900), '900 B');
    assert.strictEqual(bytes(73400320), '70.0 MiB');
    const emb = { vectors: 0, pending: 0, embedded: 0 };
    assert.strictEqual(embeddingsWord({ ...emb, state: 'unavailable', reason: 'no runtime' }), 'unavailable');
    assert.strictEqual(embeddingsText({ ...emb, state: 'unavailable', reason: 'no runtime' }), 'unavailable: no runtime');
    assert.strictEqual(embeddingsWord({ ...emb, state: 'ready' }), 'ready');
    assert.strictEqual(embeddingsWord({ ...emb, state: '' }), 'unknown');
    assert.strictEqual(embeddingsWord(undefined), 'unknown');
  });

  it('error messages keep the server words', () => {
    assert.strictEqual(
      errorMessage('Find Callers', { code: -32601, message: 'workspace/executeCommand: callers: the code graph is not in this build: not supported by this server' }),
      'context-ls: Find Callers failed: workspace/executeCommand: callers: the code graph is not in this build: not supported by this server',
    );
    assert.strictEqual(errorMessage('Pin', new Error('Client is not running')), 'context-ls: Pin failed: Client is not running');
    assert.strictEqual(errorMessage('Pin', 'boom'), 'context-ls: Pin failed: boom');
    assert.strictEqual(errorMessage('Pin', { message: '  ' }), 'context-ls: Pin failed: unknown error');
    assert.strictEqual(
      errorMessage('Copy Context', { code: -32602, message: 'arguments[0].position: no definition here; select a range instead' }),
      'context-ls: Copy Context failed: position: no definition here; select a range instead',
      "the argument list the extension built is not the user's business",
    );
    assert.strictEqual(errorMessage('Pin', { code: -32602, message: 'arguments[0]: x.go: pin: bad selection' }), 'context-ls: Pin failed: x.go: pin: bad selection');
    assert.ok(isCancelled({ code: -32800, message: 'cancelled' }));
    assert.ok(!isCancelled({ code: -32803 }));
    assert.ok(!isCancelled(undefined));
  });
});
