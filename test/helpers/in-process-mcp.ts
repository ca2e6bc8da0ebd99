import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import type { CatalogSource } from "../../src/commands/catalog.js";
import { Session } from "../../src/commands/context.js";
import type { Profile } from "../../src/commands/tools.js";
import { createServer } from "../../src/faces/mcp/server.js";
import { cleanEnv } from "./workspace.js";

/**
 * The MCP server built in this process over a session in `dir`, as `cairn mcp` builds it, and the
 * SDK's client linked to it in memory: for tests that must swap a handler or a catalog source,
 * which a spawned server cannot be made to take.
 */
export async function connectInProcess(
  dir: string,
  options: { env?: Record<string, string | undefined>; profile?: Profile; catalogs?: CatalogSource[] } = {},
): Promise<{ client: Client; close: () => Promise<void> }> {
  const session = new Session({ cwd: dir, env: cleanEnv(options.env) });
  const profile = options.profile ?? (await session.context()).profile;
  const server = createServer(session, profile, options.catalogs);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "in-process-test", version: "1" });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await session.close();
    },
  };
}
