import { type McpServer, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { LISTED, RESOURCES, type RunCommand } from "../../commands/resources.js";

/**
 * Where the next page starts, opaque to the client: `skills` while skill files remain to list (the
 * offset into them), then the templates' own: the task `after` which the tasks go on, and the
 * `offset` into the goals.
 */
interface Cursor {
  skills?: number;
  offset: number;
  after?: string;
}

export const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString("base64url");

/** A safe integer, as every offset this server gives out: a larger one is forged. */
const isOffset = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/** A task id as the store hands them out: every `after` this server gives out is one. */
const isTaskId = (value: unknown): value is string => typeof value === "string" && /^T-\d{1,15}$/.test(value);

export function decodeCursor(cursor: string | undefined, method = "resources/list"): Cursor {
  if (cursor === undefined) return { skills: 0, offset: 0 };
  try {
    const { skills, offset, after } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Cursor;
    // The command it would reach would otherwise answer with its own flags' names.
    if (
      isOffset(offset) &&
      (skills === undefined || isOffset(skills)) &&
      (after === undefined || isTaskId(after))
    )
      return { skills, offset, ...(after === undefined ? {} : { after }) };
  } catch {
    // Fall through to the protocol error below.
  }
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `${method}: the cursor is not one this server gave out; list again without a cursor`,
  );
}

/** The templates' page a cursor names: every template starts from what the cursor says, not from another's next. */
const cursorPage = (cursor: Cursor) => ({
  offset: cursor.offset,
  ...(cursor.after ? { after: cursor.after } : {}),
  limit: LISTED,
});

/** Skill files listed on one page: thousands of skills come a page at a time, as tasks do. */
const SKILLS_LISTED = 500;

/** A page of the resources other faces serve (skill files), and the offset of the next. */
export type ExtraPage = (
  offset: number,
  limit: number,
) => Promise<{ resources: { uri: string; name: string; mimeType?: string }[]; next: number | null }>;

/**
 * `resources/list`, paged: the fixed resources on the first page, then the skill files a page at
 * a time, then each template's resources for one page of tasks, with `nextCursor` while more
 * remain. Replaces the SDK's unpaged handler.
 */
export function pageResourceList(
  server: McpServer,
  run: () => RunCommand,
  extra: ExtraPage = async () => ({ resources: [], next: null }),
): void {
  server.server.setRequestHandler("resources/list", async (request) => {
    const cursor = decodeCursor(request.params?.cursor);
    const first = cursor.skills === 0 && cursor.offset === 0;
    const fixed = first
      ? RESOURCES.filter((spec) => !spec.uri.includes("{")).map((spec) => ({
          uri: spec.uri,
          name: spec.name,
          title: spec.title,
          description: spec.description,
          mimeType: spec.mimeType,
        }))
      : [];
    const skills = cursor.skills === undefined ? undefined : await extra(cursor.skills, SKILLS_LISTED);
    // Skill files remain: the tasks come on the pages after theirs.
    if (skills && skills.next !== null) {
      return {
        resources: [...fixed, ...skills.resources],
        nextCursor: encodeCursor({ skills: skills.next, offset: 0 }),
      };
    }
    // Each template says where its own part of the next page starts; the tasks and briefs agree.
    const next: Cursor = { offset: cursor.offset, ...(cursor.after ? { after: cursor.after } : {}) };
    let done = true;
    const listed = [];
    for (const spec of RESOURCES) {
      if (!spec.list) continue;
      const page = await spec.list(run(), cursorPage(cursor));
      Object.assign(next, page.next);
      done &&= page.done;
      listed.push(...page.resources.map((r) => ({ ...r, mimeType: spec.mimeType })));
    }
    return {
      resources: [...fixed, ...(skills?.resources ?? []), ...listed],
      ...(done ? {} : { nextCursor: encodeCursor(next) }),
    };
  });
}
