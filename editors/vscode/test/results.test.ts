import * as assert from 'assert';
import { GraphResult, RelatedResult } from '../src/protocol';
import { exploreTitle, exploreTree, ResultNode } from '../src/results';
import { fixture } from './golden';

const folders = [{ uri: 'file:///home/dev/shop', name: 'shop' }];
const r = fixture<{ callers: GraphResult; tests: GraphResult; related: RelatedResult }>('results.json');

/** The tree as indented lines: label — description [→ path:line]. */
function lines(nodes: ResultNode[], depth = 0): string[] {
  return nodes.flatMap((n) => [
    `${'  '.repeat(depth)}${n.label}${n.description ? ` — ${n.description}` : ''}${n.location ? ` → ${n.location.uri.replace('file:///home/dev/shop/', '')}:${n.location.range.start.line + 1}` : ''}`,
    ...lines(n.children ?? [], depth + 1),
  ]);
}

describe('results view tree', () => {
  it('groups every answer, each item saying why it is listed and where a click goes', () => {
    const tree = exploreTree({ callers: r.callers, callees: { results: [{ ...r.callers.results[0], items: [], omitted: 0 }] }, tests: r.tests, related: r.related }, folders);
    const got = lines(tree);
    assert.deepStrictEqual(got.slice(0, 11), [
      'Definitions — 1',
      '  Stock.Reserve — method · inventory/stock.go:25 → inventory/stock.go:25',
      'Callers — 3',
      '  main — exact · receiver type Stock · cmd/shop/main.go:14 → cmd/shop/main.go:14',
      '  TestReserve — exact · receiver type Stock · inventory/stock_test.go:11 → inventory/stock_test.go:11',
      '    inventory/stock_test.go:11 — call site → inventory/stock_test.go:11',
      '    inventory/stock_test.go:14 — call site → inventory/stock_test.go:14',
      '  batch.Run — likely · method name · cmd/batch/run.go:4 → cmd/batch/run.go:4',
      '  1 left out: name-only matches or past the limit',
      'Callees — 0',
      '  none found',
    ]);
    const related = tree[4];
    assert.strictEqual(related.label, 'Related');
    assert.match(related.children![0].description!, /^score \d\.\d\d · .+ · .+:\d+$/);
    assert.match(related.children![0].tooltip!, /reason: .+\nscore: \d\.\d\d\n\d+ tokens/);
    const tests = tree[3];
    assert.strictEqual(tests.description, String(r.tests.results[0].items.length));
    assert.match(tests.children![0].tooltip!, /confidence: \w+/);
    assert.strictEqual(exploreTitle({ callers: r.callers }), 'Stock.Reserve');
  });

  it('a failed answer is said in its group; no definitions then says the graph error', () => {
    const tree = exploreTree({ related: r.related, errors: { callers: 'the call graph is not in this build', callees: 'x', tests: 'x' } }, folders);
    assert.deepStrictEqual(
      tree.map((n) => `${n.label}: ${n.description}: ${n.children![0].label}`).slice(0, 2),
      ['Definitions: failed: the call graph is not in this build', 'Callers: failed: the call graph is not in this build'],
    );
    assert.strictEqual(exploreTitle({ related: r.related }), r.related.symbol || 'this place');
  });
});
