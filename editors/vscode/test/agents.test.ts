import * as assert from 'assert';
import { mcpRegistration, serverKey } from '../src/agents';

describe('Set Up for Agents', () => {
  it('one folder: the context-ls entry runs the editor\'s binary as an MCP server on that folder', () => {
    assert.deepStrictEqual(JSON.parse(mcpRegistration('/usr/local/bin/context-ls', [{ name: 'shop', path: '/home/dev/shop' }])), {
      mcpServers: { 'context-ls': { command: '/usr/local/bin/context-ls', args: ['mcp', '--root', '/home/dev/shop'] } },
    });
  });

  it('several folders: one entry each, with unique keys', () => {
    const reg = JSON.parse(
      mcpRegistration('/bin/context-ls', [
        { name: 'Shop API', path: '/w/api' },
        { name: 'shop api', path: '/x/api' },
        { name: '***', path: '/w/star' },
      ]),
    ) as { mcpServers: Record<string, { args: string[] }> };
    assert.deepStrictEqual(Object.keys(reg.mcpServers), ['context-ls-shop-api', 'context-ls-shop-api-2', 'context-ls-folder']);
    assert.deepStrictEqual(reg.mcpServers['context-ls-shop-api-2'].args, ['mcp', '--root', '/x/api']);
    assert.strictEqual(serverKey({ name: 'a', path: '/a' }, false), 'context-ls');
  });

  it('paths that need escaping survive as JSON', () => {
    const text = mcpRegistration('C:\\Program Files\\context-ls.exe', [{ name: 'w', path: 'C:\\src\\"quoted" dir' }]);
    assert.deepStrictEqual(JSON.parse(text).mcpServers['context-ls'], { command: 'C:\\Program Files\\context-ls.exe', args: ['mcp', '--root', 'C:\\src\\"quoted" dir'] });
    assert.ok(text.endsWith('\n'));
  });
});
