import * as assert from 'assert';
import { FolderPins, pinItemArgs, pinLabel, pinPlace, pinsDescription, pinsToKeep, pinsTree } from '../src/pins';
import { PackAnswer, PinsAnswer } from '../src/protocol';
import { fixture } from './golden';

/** What the real server answered: a whole file, a pin whose file is gone, a function's lines. */
const { pack, pins } = fixture<{ pack: PackAnswer; pins: PinsAnswer }>('pack-preview.json');
const shop = { uri: 'file:///home/dev/shop', name: 'shop' };

describe('pins view model', () => {
  it('lists the pins in pinning order with their tokens, and says why one adds nothing', () => {
    const f: FolderPins = { folder: shop, serverFolder: pins.folder, pins: pins.pins };
    const tree = pinsTree([f]);
    assert.deepStrictEqual(
      tree.map((n) => `[${n.contextValue}] $(${n.icon}) ${n.label} — ${n.description}${n.location ? ' (opens)' : ''}`),
      [
        '[pin] $(pinned) retry/backoff.py — 109 tokens (opens)',
        '[pin.gone] $(warning) gone.go:3-3 — file: "gone.go" does not exist',
        '[pin] $(pinned) cmd/shop/main.go:10-15 — 60 tokens (opens)',
      ],
    );
    assert.match(tree[0].tooltip!, /the whole file/);
    assert.match(tree[1].tooltip!, /adds nothing to packs; Unpin removes it/);
    assert.strictEqual(tree[2].value!.folder, f);
    assert.strictEqual(pinsDescription([f]), '3 pins · 169 tokens in every pack');
    assert.deepStrictEqual(pinsTree([{ folder: shop, pins: [] }]), [], 'nothing pinned: the welcome text says so');
    assert.strictEqual(pinsDescription([{ folder: shop, pins: [] }]), undefined);
  });

  it('groups by folder when several are open, naming a folder whose pins could not be listed', () => {
    const lib = { uri: 'file:///home/dev/lib', name: 'lib' };
    const docs = { uri: 'file:///home/dev/docs', name: 'docs' };
    const tree = pinsTree([
      { folder: shop, pins: pins.pins.slice(0, 1) },
      { folder: lib, error: 'the index is closed' },
      { folder: docs, pins: [] },
    ]);
    assert.deepStrictEqual(
      tree.map((n) => [n.label, n.description, (n.children ?? []).map((c) => c.label)]),
      [
        ['shop', '1 pin · 109 tokens in every pack', ['retry/backoff.py']],
        ['lib', 'failed', ['pins not listed: the index is closed']],
      ],
    );
  });

  it('unpins a pin as it was pinned: its lines, or its whole file', () => {
    const [whole, , lines] = pins.pins;
    assert.strictEqual(pinLabel(whole), 'retry/backoff.py');
    assert.deepStrictEqual(pinPlace(whole), { textDocument: { uri: 'file:///home/dev/shop/retry/backoff.py' } });
    assert.deepStrictEqual(pinPlace(lines), {
      textDocument: { uri: 'file:///home/dev/shop/cmd/shop/main.go' },
      range: { start: { line: 9, character: 0 }, end: { line: 14, character: 1 } },
    });
  });

  it('pins a pack item by its lines', () => {
    const caller = pack.items.find((it) => it.path === 'inventory/stock.go' && it.startLine === 9)!;
    assert.deepStrictEqual(pinItemArgs(caller), { textDocument: { uri: caller.location.uri }, range: caller.location.range });
  });

  it('keeps the pins whose files are there when a gone one is removed by clearing all', () => {
    const [whole, gone, lines] = pins.pins;
    assert.deepStrictEqual(pinsToKeep(pins.pins, gone), [whole, lines]);
    assert.deepStrictEqual(pinsToKeep(pins.pins, whole), [lines], 'another gone pin cannot be pinned again');
  });
});
