import * as assert from 'assert';
import {
  budgetProblem,
  dropItem,
  excludeKey,
  itemPlace,
  packArgs,
  packDescription,
  PackContext,
  PackNode,
  PackRequest,
  packText,
  packTree,
  parseBudget,
  restoreItem,
  withBudget,
} from '../src/pack';
import { PackAnswer } from '../src/protocol';
import { fixture, golden } from './golden';

/** A pack the real server answered: Stock.Reserve with two pins, one item dropped, one pin gone. */
const pack = fixture<{ pack: PackAnswer }>('pack-preview.json').pack;
const place = { textDocument: { uri: 'file:///home/dev/shop/inventory/stock.go' }, position: { line: 24, character: 18 }, format: 'markdown' };

/** The tree as indented lines: [contextValue] $(icon) label — description → path:line. */
function lines(nodes: PackNode[], depth = 0): string[] {
  return nodes.flatMap((n) => [
    `${'  '.repeat(depth)}${n.contextValue ? `[${n.contextValue}] ` : ''}$(${n.icon}) ${n.label}${n.description ? ` — ${n.description}` : ''}${
      n.location ? ` → ${n.location.uri.replace('file:///home/dev/shop/', '')}:${n.location.range.start.line + 1}` : ''
    }`,
    ...lines(n.children ?? [], depth + 1),
  ]);
}

describe('context pack preview model', () => {
  it('asks again for the place with the budget chosen and the items dropped, never losing one', () => {
    const req: PackRequest = { base: place, exclude: [] };
    assert.deepStrictEqual(packArgs(req), place, 'a new preview: the budget setting, nothing excluded');
    const [a, b] = pack.items;
    const once = dropItem(req, a);
    assert.deepStrictEqual(req.exclude, [], 'the request shown is not changed');
    const twice = dropItem(dropItem(once, b), a);
    assert.deepStrictEqual(packArgs(twice).exclude, ['inventory/stock.go:6-7', 'inventory/stock.go:9-12']);
    const bigger = withBudget(twice, 8000);
    assert.deepStrictEqual(packArgs(bigger), { ...place, budget: 8000, exclude: ['inventory/stock.go:6-7', 'inventory/stock.go:9-12'] });
    assert.deepStrictEqual(packArgs(restoreItem(bigger, 'inventory/stock.go:6-7')).exclude, ['inventory/stock.go:9-12']);
    assert.strictEqual(packArgs(restoreItem(once, excludeKey(a))).exclude, undefined, 'nothing left to exclude: no exclude at all');
    assert.strictEqual(packArgs(req).budget, undefined);
  });

  it('names an item by path and lines, as exclude does', () => {
    const sel = pack.items.find((it) => it.source === 'selection')!;
    assert.strictEqual(excludeKey(sel), 'inventory/stock.go:25-31');
    assert.strictEqual(itemPlace(sel), 'inventory/stock.go:25-31');
    assert.strictEqual(itemPlace({ ...sel, endLine: 25 }), 'inventory/stock.go:25');
    assert.strictEqual(excludeKey({ ...sel, endLine: 25 }), 'inventory/stock.go:25-25');
  });

  it('takes a budget the server takes, said as people write numbers', () => {
    assert.strictEqual(parseBudget('8000'), 8000);
    assert.strictEqual(parseBudget(' 12,000 '), 12000);
    assert.strictEqual(parseBudget('100'), 100);
    assert.strictEqual(parseBudget('1000000'), 1000000);
    for (const bad of ['', 'lots', '99', '1000001', '4.5', '-300']) {
      assert.strictEqual(parseBudget(bad), undefined, bad);
      assert.match(budgetProblem(bad)!, /100 to 1,000,000/, bad);
    }
  });

  it('shows the total against the budget, what was left out, the notes, then each item with why it is in', () => {
    const req: PackRequest = { base: place, exclude: ['inventory/stock_test.go:8-17'] };
    const tree = packTree(pack, req);
    golden('pack-preview.golden', lines(tree).join('\n') + '\n');
    const [header, ...items] = tree;
    assert.strictEqual(header.label, '447 / 600 tokens');
    assert.strictEqual(header.description, '5 items · 1 dropped by you (2 candidates)');
    assert.strictEqual(items.length, pack.items.length);
    const dropped = header.children!.find((n) => n.contextValue === PackContext.dropped)!;
    assert.deepStrictEqual(dropped.value, { dropped: 'inventory/stock_test.go:8-17' });
    const pinned = items.filter((n) => n.contextValue === PackContext.pinned).map((n) => n.label);
    assert.deepStrictEqual(pinned, ['cmd/shop/main.go:10-15', 'retry/backoff.py:1-16']);
    for (const n of items) {
      assert.ok(n.value !== undefined && 'item' in n.value, n.label);
      assert.deepStrictEqual(n.location, n.value.item.location, 'a click opens the item');
    }
    const full = packTree({ ...pack, dropped: 3, excluded: 0 }, { base: place, exclude: [] });
    assert.strictEqual(full[0].description, '5 items · 3 left out for the budget');
    assert.match(full[0].tooltip!, /Drop an item to give its tokens to the next candidates/);
    assert.strictEqual(packDescription(pack, place), 'Stock.Reserve · 447 / 600 tokens');
    assert.strictEqual(packDescription({ ...pack, items: [] }, { query: ' retry uploads ' }), '“retry uploads” · 447 / 600 tokens');
  });

  it('says plainly when nothing relevant was found', () => {
    const tree = packTree({ text: '', format: 'markdown', tokens: 0, budget: 4000, dropped: 0, items: [], notes: [], latencyMs: 1 }, { base: { query: 'zzz' }, exclude: [] });
    assert.deepStrictEqual(lines(tree), ['$(dashboard) 0 / 4,000 tokens — 0 items', '$(info) nothing relevant was found']);
  });

  it('marks shortened items and explains the marks in the tooltip', () => {
    const [, , sel] = packTree({ ...pack, items: pack.items.map((it) => ({ ...it, shortened: true })) }, { base: place, exclude: [] }).slice(1);
    assert.match(sel.description!, /^Stock\.Reserve · the selection · always · 49 tokens · shortened$/);
    assert.match(sel.tooltip!, /always: every pack for this request includes it/);
    assert.match(sel.tooltip!, /shortened: bodies elided or lines cut to fit the budget/);
  });

  it('copies the rendered pack, or with format json the pack as JSON', () => {
    assert.strictEqual(packText(pack), pack.text);
    const json: PackAnswer = { ...pack, format: 'json', text: '', items: pack.items.map((it) => ({ ...it, text: 'func x() {}' })) };
    const parsed = JSON.parse(packText(json));
    assert.strictEqual(parsed.length, pack.items.length, 'an older server: the items with their text, as newer ones render them');
    assert.deepStrictEqual(Object.keys(parsed[0]).includes('location'), false);
    assert.deepStrictEqual([parsed[0].path, parsed[0].startLine, parsed[0].text], ['inventory/stock.go', 6, 'func x() {}']);
    assert.strictEqual(packText({ ...json, text: '[{"path":"a.go"}]' }), '[{"path":"a.go"}]', 'a newer server: its text');
    assert.strictEqual(packText({ ...pack, text: '' }), '', 'an empty markdown pack has nothing to copy');
  });
});
