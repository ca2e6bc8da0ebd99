import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const transport = new StdioClientTransport({
  command: "node",
  args: ["/work/main/bin/cairn.mjs", "mcp"],
  cwd: "/tmp/ws1",
  stderr: "inherit",
});
const client = new Client({ name: "t", version: "1" });
await client.connect(transport);
const huge = "a".repeat(5 * 1024 * 1024);
try {
  const r = await client.callTool({
    name: "cli",
    arguments: { schema_version: 1, argv: ["agent", "add", huge, "--role", "builder"] },
  });
  console.log(JSON.stringify(r).length, JSON.stringify(r).slice(0, 300));
} catch (e) {
  console.log("ERR", e);
}
await client.close();
