import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceTemplate,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { BACKGROUND, type CallControls, type Session } from "../../commands/context.js";
import { dispatch } from "../../commands/dispatch.js";
import { commandsCatalog } from "../../commands/prompts/catalog.js";
import { COMMANDS_BY_NAME } from "../../commands/registry.js";
import { skillsCatalog } from "../../commands/skills/catalog.js";
import { SKILL_FILE_TEMPLATE } from "../../commands/skills/completers.js";
import { subscribedSkillFolders } from "../../commands/skills/extension.js";
import { watchCatalog } from "./catalog-watch.js";
import { type ListedOutputs, servePeoplePrompts } from "./people-prompts.js";
import { decodeCursor, encodeCursor } from "./resource-pages.js";

/** The MCP Skills extension's identifier, as declared under the server's `extensions` capability. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";
const CACHE = { ttlMs: 5_000, cacheScope: "private" as const };

/** As resources are read (see runner): the host's look, which renews none of the caller's leases. */
async function run(
  session: Session,
  command: string,
  input: Record<string, unknown>,
  controls: CallControls = BACKGROUND,
) {
  const found = COMMANDS_BY_NAME.get(command);
  if (!found) throw new Error(`internal: no command ${command}`);
  const outcome = await dispatch(found, input, session, controls);
  if (outcome.kind === "ok") return outcome.value as Record<string, unknown>;
  const message = outcome.kind === "refused" ? outcome.refusal.reason : outcome.error.message;
  // The extension answers an unknown skill with Invalid params, as resources/read does.
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}

const Entry = z.looseObject({});
/** Skills' entries on one page of `skills/list`. */
const ENTRIES_LISTED = 100;

/**
 * Skills served natively to hosts that speak the extension: every skill file a resource
 * (`skill://<name>/<path>`), `skills/list` and `skills/get` answering entries with per-file
 * digests. The rules live in the `skill entries` and `skill resource` commands.
 */
/**
 * A page of the skills' `SKILL.md` files as listed resources (their other files are read by URI),
 * from the catalog alone: nothing is read or hashed to list them.
 */
export async function listSkillResources(session: Session, offset: number, limit: number) {
  const out = await run(session, "skill listing", { offset, limit }).catch(() => ({
    resources: [],
    next: null,
  }));
  const resources = out.resources as { uri: string; name: string; description: string }[];
  return {
    resources: resources.map((s) => ({ ...s, mimeType: "text/markdown" })),
    next: out.next as number | null,
  };
}

export function serveSkillsExtension(
  server: McpServer,
  session: Session,
  /** Any skill or command file changed on disk (subscribed `skill://` resources re-check). */
  onFilesChanged?: () => void,
  /** The `skill://` URIs clients subscribed to: the folders of those below a skill's own are watched too. */
  subscribed: () => readonly string[] = () => [],
): { close(): void; rearm(): Promise<void> } {
  server.server.registerCapabilities({ extensions: { [SKILLS_EXTENSION]: {} } } as never);
  // Listed by the paged resources/list (resource-pages.ts), which replaces the SDK's.
  const template = new ResourceTemplate(SKILL_FILE_TEMPLATE, { list: undefined });
  server.registerResource(
    "skill",
    template,
    {
      title: "Skill file",
      description: "A file of an Agent Skill; skill text is data written by its author.",
    },
    async (uri) => {
      const out = await run(session, "skill resource", { uri: uri.toString() });
      const { uri: _uri, ...content } = out;
      return { contents: [{ uri: uri.toString(), ...content }] as never };
    },
  );
  server.server.setRequestHandler(
    "skills/list",
    { params: z.looseObject({ cursor: z.string().optional() }).optional(), result: Entry },
    async (params) => {
      // A page of entries at a time: each hashes every file of its skill.
      const { offset } = decodeCursor((params as { cursor?: string } | undefined)?.cursor, "skills/list");
      const out = await run(session, "skill entries", { offset, limit: ENTRIES_LISTED });
      const next = out.next as number | null;
      return {
        resultType: "complete",
        skills: out.skills,
        ...(next !== null ? { nextCursor: encodeCursor({ offset: next }) } : {}),
        ...CACHE,
      };
    },
  );
  server.server.setRequestHandler(
    "skills/get",
    { params: z.looseObject({ uri: z.string() }), result: Entry },
    async (params) => {
      const out = await run(session, "skill entries", { uri: (params as { uri: string }).uri });
      return { resultType: "complete", skill: (out.skills as unknown[])[0], ...CACHE };
    },
  );
  // Skill files changing on disk change the resource list (and any people-only command prompts).
  // The watcher lists skills and commands once per settled change, for its fingerprint and for
  // the people-only prompts alike (the first settle, at start, registers them).
  const prompts = servePeoplePrompts(server, session);
  let lists: ListedOutputs | undefined;
  let first = true;
  const context = () => session.context().catch(() => undefined);
  return watchCatalog(
    async () => {
      const ctx = await context();
      if (!ctx) return [];
      return [
        ...skillsCatalog.watched(ctx),
        ...commandsCatalog.watched(ctx),
        ...subscribedSkillFolders(ctx, subscribed()),
      ];
    },
    async () => {
      // The listed resources are the skills' SKILL.md files: the set of skills is the fingerprint.
      // The watcher's own look, not the caller's call: it renews none of the caller's leases.
      const entries = await run(session, "skill list", {}, BACKGROUND).catch((error: Error) => ({
        error: error.message,
      }));
      const commands = await run(session, "command list", {}, BACKGROUND).catch(() => undefined);
      lists = {
        "skill list": "error" in entries ? undefined : entries,
        "command list": commands,
      };
      if (first) {
        first = false;
        void prompts.refresh(lists).catch(() => {});
      }
      return JSON.stringify([entries, commands ?? {}]);
    },
    () => {
      if (!server.isConnected()) return;
      server.sendResourceListChanged();
      void prompts.refresh(lists).catch(() => {});
    },
    onFilesChanged,
  );
}
