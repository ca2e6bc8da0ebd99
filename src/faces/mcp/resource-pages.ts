import { type McpServer, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { LISTED, RESOURCES, type RunCommand } from "../../commands/resources.js";

/** A cursor is the offset of the next page, opaque to the client. */
const encodeCursor = (offset: number) => Buffer.from(JSON.stringify({ offset })).toString("base64url");

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const { offset } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { offset: unknown };
    // A safe integer, as every offset this server gives out: a larger one is forged, and the
    // command it would reach would answer with its own flags' names.
    if (typeof offset === "number" && Number.isSafeInteger(offset) && offset >= 0) return offset;
  } catch {
    // Fall through to the protocol error below.
  }
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    "resources/list: the cursor is not one this server gave out; list again without a cursor",
  );
}

/**
 * `resources/list`, paged: the fixed resources on the first page, then each template's resources
 * for one page of tasks, with `nextCursor` while more remain. Replaces the SDK's unpaged handler.
 */
export function pageResourceList(
  server: McpServer,
  run: () => RunCommand,
  /** Resources other faces serve (skill files), listed whole on the first page. */
  extra: () => Promise<{ uri: string; name: string; mimeType?: string }[]> = async () => [],
): void {
  server.server.setRequestHandler("resources/list", async (request) => {
    const offset = decodeCursor(request.params?.cursor);
    const fixed =
      offset === 0
        ? [
            ...RESOURCES.filter((spec) => !spec.uri.includes("{")).map((spec) => ({
              uri: spec.uri,
              name: spec.name,
              title: spec.title,
              description: spec.description,
              mimeType: spec.mimeType,
            })),
            ...(await extra()),
          ]
        : [];
    let next: number | null = null;
    const listed = [];
    for (const spec of RESOURCES) {
      if (!spec.list) continue;
      const page = await spec.list(run(), { offset, limit: LISTED });
      next = page.next ?? next;
      listed.push(...page.resources.map((r) => ({ ...r, mimeType: spec.mimeType })));
    }
    return { resources: [...fixed, ...listed], ...(next !== null ? { nextCursor: encodeCursor(next) } : {}) };
  });
}
