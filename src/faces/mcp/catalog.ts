import {
  type ClientCapabilities,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { CatalogError, type CatalogSource, type CatalogTool } from "../../commands/catalog.js";
import {
  buildCatalog,
  catalogCommand,
  catalogSources,
  catalogToolSchemas,
  catalogWatched,
} from "../../commands/catalog-build.js";
import type { Session, SessionContext } from "../../commands/context.js";
import { describeIssues, dispatch } from "../../commands/dispatch.js";
import { type Profile, toolsForProfile } from "../../commands/tools.js";
import { oneLine } from "../../kernel/visible-text.js";
import { watchCatalog } from "./catalog-watch.js";
import { callControls } from "./controls.js";
import { fitOneMessage, toolResult } from "./results.js";

type Handler = (request: { params?: Record<string, unknown> }, ctx: ServerContext) => Promise<unknown>;

/** The SDK's own handler for a method (protected in its typings; we wrap it, never replace it). */
function sdkHandler(server: McpServer, method: string): Handler {
  const handler = (
    server.server as unknown as { _getRequestHandler(m: string): Handler | undefined }
  )._getRequestHandler(method);
  if (!handler) throw new Error(`internal: the MCP server has no ${method} handler`);
  return handler;
}

/** A broken catalog file is a protocol fault of the list: the error names the file and why. */
function catalogFault(error: CatalogError): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InternalError, `catalog file ${error.file}: ${error.reason}`, {
    file: error.file,
    reason: error.reason,
  });
}

/**
 * File-backed tools beside the hand-kept ones: `tools/list` rebuilds every catalog from disk and
 * lists both; a call to a name no hand-kept tool has is resolved against the last build while the
 * watcher has seen no change since, else by rebuilding and matching, then runs the tool's command through the same dispatch as any tool (guard, output schema,
 * refusals). Catalog paths are watched so clients hear `tools/list_changed`.
 */
export function serveCatalog(
  server: McpServer,
  session: Session,
  profile: Profile,
  sources: readonly CatalogSource[] = catalogSources(),
): { close(): void } {
  if (sources.length === 0) return { close() {} };
  const staticNames = new Set(toolsForProfile(profile).map((tool) => tool.name));
  const listStatic = sdkHandler(server, "tools/list");
  const callStatic = sdkHandler(server, "tools/call");
  const warned = new Set<string>();

  /** The workspace this session serves, or none: without one there are no file-backed tools. */
  const context = (): Promise<SessionContext | undefined> => session.context().catch(() => undefined);

  /**
   * The tools of the last build, and whether anything on disk has changed since it started. A
   * call reuses them while nothing has (its name resolved without rebuilding every catalog);
   * a change the watcher sees, or watchers not yet (re)armed, means the next call rebuilds.
   */
  let latest: CatalogTool[] | undefined;
  let changesSeen = 0;
  let latestAt = -1;
  const changed = () => {
    changesSeen++;
  };

  const rebuild = async (ctx: SessionContext): Promise<CatalogTool[]> => {
    const started = changesSeen;
    try {
      const built = await buildCatalog(ctx, profile, { sources, reserved: staticNames });
      latest = built.tools;
      latestAt = started;
      for (const warning of built.warnings) {
        if (warned.has(warning)) continue;
        warned.add(warning);
        // A warning names what files hold (an agent's name, a path): one visible line, so a
        // manifest cannot act on the terminal or the client's log, nor add a line of its own.
        process.stderr.write(`cairn mcp: catalog: ${oneLine(warning)}\n`);
      }
      return built.tools;
    } catch (error) {
      if (error instanceof CatalogError) throw catalogFault(error);
      throw error;
    }
  };

  server.server.removeRequestHandler("tools/list");
  server.server.setRequestHandler("tools/list", async (request, ctx) => {
    const listed = (await listStatic(request, ctx)) as { tools: unknown[] };
    const workspace = await context();
    const files = workspace ? (await rebuild(workspace)).map(definition) : [];
    return { ...listed, tools: [...listed.tools, ...files] } as never;
  });

  server.server.removeRequestHandler("tools/call");
  server.server.setRequestHandler("tools/call", async (request, ctx) => {
    const name = request.params.name;
    const workspace = staticNames.has(name) ? undefined : await context();
    const find = (tools: CatalogTool[]) => tools.find((candidate) => candidate.name === name);
    const current = latestAt === changesSeen ? latest : undefined;
    // A name the current tools lack may be a tool just added: only then is everything rebuilt.
    const tool = workspace ? ((current && find(current)) ?? find(await rebuild(workspace))) : undefined;
    if (!tool) return (await callStatic(request, ctx)) as never;
    return (await callFileTool(
      tool,
      request.params.arguments ?? {},
      session,
      ctx,
      server.server.getClientCapabilities(),
    )) as never;
  });

  return watchCatalog(
    async () => {
      const workspace = await context();
      return workspace ? catalogWatched(workspace, sources) : [];
    },
    async () => {
      const workspace = await context();
      if (!workspace) return "";
      try {
        return JSON.stringify((await rebuild(workspace)).map(definition));
      } catch (error) {
        return `error: ${(error as Error).message}`;
      }
    },
    () => {
      if (server.isConnected()) server.sendToolListChanged();
    },
    undefined,
    changed,
  );
}

/** How a file-backed tool appears in `tools/list`, shaped like the SDK lists a hand-kept one. */
function definition(tool: CatalogTool) {
  const schemas = catalogToolSchemas(tool);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: schemas.inputJson,
    outputSchema: schemas.outputJson,
    annotations: schemas.annotations,
  };
}

async function callFileTool(
  tool: CatalogTool,
  args: unknown,
  session: Session,
  ctx: ServerContext,
  client: ClientCapabilities | undefined,
) {
  const schemas = catalogToolSchemas(tool);
  const parsed = schemas.input.safeParse(args);
  if (!parsed.success) {
    // As for a hand-kept tool: bad arguments are a result the model can read and fix.
    return {
      content: [
        { type: "text", text: `Invalid arguments for tool ${tool.name}: ${describeIssues(parsed.error)}` },
      ],
      isError: true,
    };
  }
  const { schema_version: _version, ...rest } = parsed.data as Record<string, unknown>;
  const { controls, delivered } = callControls(ctx, client);
  const outcome = await dispatch(catalogCommand(tool), tool.commandInput(rest), session, controls);
  await delivered();
  const result = toolResult(outcome);
  if (outcome.kind === "ok" && tool.text) {
    result.content = [{ type: "text", text: tool.text(outcome.value as Record<string, unknown>) }];
  }
  return fitOneMessage(result);
}
