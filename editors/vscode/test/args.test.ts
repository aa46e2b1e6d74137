import * as assert from 'assert';
import {
  describeFilters,
  EditorState,
  isEmptySelection,
  packArgsForQuery,
  packArgsForSelection,
  parseSearchInput,
  placeArgs,
  reindexArgs,
  searchArgs,
  selectionRange,
} from '../src/args';

const uri = 'file:///w/geo/shapes%20v2.go';
const at = (line: number, character: number) => ({ line, character });

describe('args', () => {
  const places: { name: string; ed: EditorState; want: object }[] = [
    {
      name: 'cursor: document and position, no range',
      ed: { uri, anchor: at(3, 7), active: at(3, 7) },
      want: { textDocument: { uri }, position: at(3, 7) },
    },
    {
      name: 'forward selection: range in order, position at the cursor',
      ed: { uri, anchor: at(1, 0), active: at(4, 2) },
      want: { textDocument: { uri }, position: at(4, 2), range: { start: at(1, 0), end: at(4, 2) } },
    },
    {
      name: 'backward selection: range still ordered',
      ed: { uri, anchor: at(9, 1), active: at(2, 5) },
      want: { textDocument: { uri }, position: at(2, 5), range: { start: at(2, 5), end: at(9, 1) } },
    },
    {
      name: 'selection on one line, backwards',
      ed: { uri, anchor: at(2, 9), active: at(2, 3) },
      want: { textDocument: { uri }, position: at(2, 3), range: { start: at(2, 3), end: at(2, 9) } },
    },
  ];
  for (const tc of places) {
    it(`placeArgs: ${tc.name}`, () => {
      assert.deepStrictEqual(placeArgs(tc.ed), tc.want);
    });
  }

  it('does not share position objects with the editor state', () => {
    const ed: EditorState = { uri, anchor: at(1, 1), active: at(2, 2) };
    const args = placeArgs(ed);
    args.position!.line = 99;
    args.range!.start.line = 99;
    assert.deepStrictEqual(ed, { uri, anchor: at(1, 1), active: at(2, 2) });
    assert.ok(!isEmptySelection(ed));
    assert.deepStrictEqual(selectionRange(ed), { start: at(1, 1), end: at(2, 2) });
  });

  it('pack for the selection carries the format and only a valid explicit budget', () => {
    const ed: EditorState = { uri, anchor: at(0, 0), active: at(0, 0) };
    assert.deepStrictEqual(packArgsForSelection(ed, { format: 'markdown' }), { textDocument: { uri }, position: at(0, 0), format: 'markdown' });
    assert.strictEqual(packArgsForSelection(ed, { format: 'xml', budget: 800 }).budget, 800);
    assert.strictEqual(packArgsForSelection(ed, { format: 'xml', budget: -1 }).budget, undefined);
    assert.strictEqual(packArgsForSelection(ed, { format: 'xml', budget: 1.5 }).budget, undefined);
  });

  it('pack for a query trims it and refuses a blank one', () => {
    assert.deepStrictEqual(packArgsForQuery('  retry uploads \n', { format: 'plain' }), { query: 'retry uploads', format: 'plain' });
    assert.strictEqual(packArgsForQuery(' \t', { format: 'plain' }), undefined);
  });

  const searches: { q: string; k: number; want: object | undefined }[] = [
    { q: 'area of a circle', k: 30, want: { query: 'area of a circle', k: 30 } },
    { q: '  Rect.Area ', k: 0, want: { query: 'Rect.Area', k: 1 } },
    { q: 'x', k: 1000, want: { query: 'x', k: 100 } },
    { q: 'x', k: Number.NaN, want: { query: 'x', k: 10 } },
    { q: '   ', k: 10, want: undefined },
    { q: 'lang:Python retry', k: 5, want: { query: 'retry', k: 5, languages: ['python'] } },
    {
      q: 'reserve kind:function,method path:inventory/** path:!**/*_test.go lang:go stock',
      k: 5,
      want: { query: 'reserve stock', k: 5, languages: ['go'], kinds: ['function', 'method'], paths: ['inventory/**', '!**/*_test.go'] },
    },
    { q: 'lang:go', k: 5, want: undefined },
    { q: 'http://example.com lang: size:3', k: 5, want: { query: 'http://example.com lang: size:3', k: 5 } },
  ];
  for (const tc of searches) {
    it(`searchArgs ${JSON.stringify(tc.q)} k=${tc.k}`, () => {
      assert.deepStrictEqual(searchArgs(tc.q, tc.k), tc.want);
    });
  }

  it('search filters are described for the picker title', () => {
    const input = parseSearchInput('kind:function lang:go,python  path:src/** reserve   stock lang:go');
    assert.deepStrictEqual(input, { text: 'reserve stock', languages: ['go', 'python'], kinds: ['function'], paths: ['src/**'] });
    assert.strictEqual(describeFilters(input), 'lang: go, python · kind: function · path: src/**');
    assert.strictEqual(describeFilters(parseSearchInput('plain words')), '');
  });

  it('reindex: dry run first, confirm only on the second step', () => {
    assert.deepStrictEqual(reindexArgs('dryRun'), { dryRun: true });
    assert.deepStrictEqual(reindexArgs('confirm'), { confirm: true });
  });
});
