// "Set up for agents": the MCP registration a coding agent (Claude Code,
// Cursor, Codex-style CLIs) needs to use context-ls on this workspace — the
// same server binary the editor runs, as `context-ls mcp --root <folder>`.
// Pure; no 'vscode'.

/** A workspace folder as the registration needs it. */
export interface AgentFolder {
  name: string;
  /** Its file-system path. */
  path: string;
}

/** One MCP server entry (the mcpServers shape agents share). */
export interface McpServer {
  command: string;
  args: string[];
}

/** The key of a folder's server: "context-ls", or "context-ls-<name>" when several folders are open. */
export function serverKey(folder: AgentFolder, several: boolean): string {
  if (!several) {
    return 'context-ls';
  }
  const name = folder.name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `context-ls-${name === '' ? 'folder' : name}`;
}

/**
 * The registration as JSON text: {"mcpServers": {...}}, one server per
 * folder, each running serverPath with ["mcp", "--root", folder]. Keys stay
 * unique when folder names collide.
 */
export function mcpRegistration(serverPath: string, folders: AgentFolder[]): string {
  const servers: Record<string, McpServer> = {};
  const several = folders.length > 1;
  for (const f of folders) {
    const base = serverKey(f, several);
    let key = base;
    for (let i = 2; key in servers; i++) {
      key = `${base}-${i}`;
    }
    servers[key] = { command: serverPath, args: ['mcp', '--root', f.path] };
  }
  return JSON.stringify({ mcpServers: servers }, null, 2) + '\n';
}
