// Drives `context-ls mcp` with the official MCP TypeScript SDK's client over
// stdio — the handshake, the tool list and calls an agent makes — on the
// fixture beside this file (copied to a temporary directory). Usage:
//   node test.mjs /path/to/context-ls
// Exits non-zero on the first failed check.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const bin = process.argv[2];
if (!bin) {
  console.error("usage: node test.mjs CONTEXT_LS_BINARY");
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), "context-ls-mcp-"));
const root = join(tmp, "ws");
cpSync(join(here, "fixture"), root, { recursive: true });

let failed = 0;
function check(ok, what, detail) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${ok || detail === undefined ? "" : ": " + detail}`);
  if (!ok) failed++;
}
const secret = "s3cret-Pa55word";
function text(res) {
  return (res.content || []).map((c) => c.text || "").join("\n");
}

const transport = new StdioClientTransport({
  command: bin,
  args: ["mcp", "--root", root, "--db", join(tmp, "db")],
  env: { ...process.env, HOME: tmp },
  stderr: "pipe",
});
const client = new Client({ name: "context-ls-clienttest", version: "1.0.0" });
try {
  await client.connect(transport);
  const info = client.getServerVersion();
  check(info && /context-ls/.test(info.name), "handshake: the server names itself", JSON.stringify(info));
  check(!!client.getServerCapabilities()?.tools, "handshake: the server offers tools");

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const want of ["query_context", "context_pack", "related_context", "find_callers", "find_references", "find_tests", "find_symbols"]) {
    check(names.includes(want), `tools/list has ${want}`, names.join(", "));
  }
  check(tools.every((t) => t.inputSchema && t.inputSchema.type === "object"), "every tool has an input schema");

  const call = (name, args) => client.callTool({ name, arguments: args });

  let res = await call("query_context", { query: "price of an item including sales tax" });
  check(!res.isError && /PriceWithTax/.test(text(res)), "query_context finds PriceWithTax", text(res).slice(0, 300));

  res = await call("context_pack", { file: "shop/refund.go", lines: "4-6", budget: 300, format: "json" });
  const pack = res.structuredContent || {};
  check(!res.isError && (pack.items || []).some((it) => it.symbol === "PriceWithTax"), "context_pack of Refund holds its callee PriceWithTax (json, 300 tokens)", JSON.stringify(pack).slice(0, 400));
  check((pack.tokens || 0) <= 300, "the pack keeps its budget", pack.tokens);

  res = await call("find_references", { symbol: "PriceWithTax" });
  check(!res.isError && /refund\.go/.test(text(res)) && /Refund/.test(text(res)), "find_references lists the call in Refund", text(res).slice(0, 300));

  res = await call("find_tests", { symbol: "Refund" });
  check(!res.isError && /TestRefund/.test(text(res)), "find_tests lists TestRefund", text(res).slice(0, 300));

  res = await call("find_symbols", {});
  check(!res.isError && /PriceWithTax/.test(text(res)), "find_symbols lists the definitions");

  res = await call("context_pack", { budget: 5 });
  check(res.isError === true && /budget|query/.test(text(res)), "a bad request is a tool error that names the argument", text(res));

  res = await call("query_context", { query: "SHOP_DB_URL shop settings" });
  const all = text(res) + JSON.stringify(res.structuredContent || {});
  check(all.includes("SHOP_DB_URL") && !all.includes(secret), "the settings file is found and its password redacted", text(res).slice(0, 300));
} catch (e) {
  check(false, "the session ran to the end", e && e.stack);
} finally {
  await client.close().catch(() => {});
  rmSync(tmp, { recursive: true, force: true });
}
console.log(failed ? `${failed} check(s) failed` : "all checks passed");
process.exit(failed ? 1 : 0);
