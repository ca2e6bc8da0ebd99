import {
  type CallToolResult,
  type JSONRPCMessage,
  ProtocolError,
  ProtocolErrorCode,
  type ResourceLink,
} from "@modelcontextprotocol/server";
import { describeError, type Outcome } from "../../kernel/outcome.js";
import { cutText, wellFormed } from "../../kernel/text.js";
import { escapeInvisible } from "../../kernel/visible-text.js";

/**
 * Outcome → MCP result. A refusal is a normal result (agent loops retry errors, and retrying a
 * refusal is exactly the loop to avoid); other failures are `isError` with what to do next.
 */
export function toolResult(outcome: Outcome<unknown>, link?: ResourceLink): CallToolResult {
  if (outcome.kind === "ok") {
    const value = outcome.value as Record<string, unknown>;
    return {
      content: [{ type: "text", text: JSON.stringify(value) }, ...(link ? [link] : [])],
      structuredContent: value,
    };
  }
  if (outcome.kind === "refused") {
    const envelope = { refused: outcome.refusal };
    return { content: [{ type: "text", text: JSON.stringify(envelope) }], structuredContent: envelope };
  }
  return { content: [{ type: "text", text: describeError(outcome.error) }], isError: true };
}

/**
 * The most one result may take as a message on stdout. The official SDK's stdio client reads at
 * most 10 MiB a message and drops the whole connection past it (an agent listing large notes
 * through `cli` lost its session); a result goes out twice, as text and as structured content.
 */
export const MAX_RESULT_BYTES = 9 * 1024 * 1024;

/** Characters a text may hold and still fit once escaped and in UTF-8, text and copy alike. */
const SURELY_FITS = MAX_RESULT_BYTES / 12;

/** What to say of an answer too large to send, or undefined when it fits in one message. */
function tooLarge(answer: unknown, chars: number, narrow: string): string | undefined {
  if (chars <= SURELY_FITS) return undefined;
  const bytes = Buffer.byteLength(JSON.stringify(answer), "utf8");
  if (bytes <= MAX_RESULT_BYTES) return undefined;
  const mb = (bytes / (1024 * 1024)).toFixed(1);
  return `the answer is ${mb} MB, more than an MCP client reads in one message (10 MB); ${narrow}`;
}

/** The result, or an error saying it is too large to send, for the caller to narrow its call. */
export function fitOneMessage(result: CallToolResult): CallToolResult {
  let chars = 0;
  for (const item of result.content ?? []) if (item.type === "text") chars += item.text.length;
  const stderr = (result.structuredContent as { stderr?: unknown } | undefined)?.stderr;
  if (typeof stderr === "string") chars += stderr.length;
  const why = tooLarge(
    result,
    chars,
    "narrow the call: a smaller limit, a filter, one id at a time, or a smaller budget",
  );
  return why ? { content: [{ type: "text", text: `usage: ${why}` }], isError: true } : result;
}

/** A resource read that fits in one message, or a protocol error saying how large it is. */
export function readFits<T extends { contents: { text?: string; blob?: string }[] }>(read: T): T {
  let chars = 0;
  for (const item of read.contents) chars += (item.text ?? item.blob ?? "").length;
  const why = tooLarge(
    read,
    chars,
    "narrow the read: e.g. a task's notes with `note list --scope` and a limit, a skill's files one by one",
  );
  if (why) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, why);
  return read;
}

/**
 * The most UTF-16 units an error keeps of its message, of each text of an `isError` result, and of
 * each string in its data: room to say what went wrong, never a caller's megabytes repeated back
 * (the SDK's own check of a tool's arguments names every unknown key whole).
 */
export const ERROR_TEXT_CHARS = 8_192;

/** An error larger than this once its texts are cut (data holding many strings) goes without its data. */
const MAX_ERROR_BYTES = 60 * 1024;

/**
 * A text an error may carry: cut to ERROR_TEXT_CHARS, saying how long it was, and its control and
 * format characters written as JSON escapes (`\u001b`), so no value in it can act on a terminal
 * or hide. Escaping is at most six characters for one: the whole stays under MAX_ERROR_BYTES.
 */
export function errorText(text: string): string {
  const kept = cutText(text, ERROR_TEXT_CHARS);
  const cut = kept.length < text.length ? `… [${text.length - kept.length} more characters]` : "";
  return `${escapeInvisible(wellFormed(kept))}${cut}`;
}

/** Every string in an error's data (values and keys) as errorText makes it. */
function errorData(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return errorText(value);
  if (value === null || typeof value !== "object") return value;
  if (depth > 16) return null;
  if (Array.isArray(value)) return value.map((item) => errorData(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[errorText(key)] = errorData(item, depth + 1);
  return out;
}

type Failure = { code: number; message: string; data?: unknown };

/** A JSON-RPC error whose message and data quote what they name cut and escaped. */
function fitError(error: Failure): Failure {
  const fitted: Failure = { ...error, message: errorText(String(error.message ?? "")) };
  if (error.data === undefined) return fitted;
  fitted.data = errorData(error.data);
  if (Buffer.byteLength(JSON.stringify(fitted), "utf8") > MAX_ERROR_BYTES) delete fitted.data;
  return fitted;
}

type Content = { type: string; text?: unknown };

/** An `isError` result whose texts are cut and escaped as an error's message is. */
function fitErrorResult<R extends { content?: unknown }>(result: R): R {
  if (!Array.isArray(result.content)) return result;
  const content = (result.content as Content[]).map((item) =>
    item?.type === "text" && typeof item.text === "string" ? { ...item, text: errorText(item.text) } : item,
  );
  return { ...result, content };
}

/**
 * An answer as the client can read it: one larger than a message it reads is replaced by an error
 * saying so, with the request's id. Tools and resource reads say how to narrow themselves (above);
 * this holds for every other answer, whose size files on disk decide (skills/list quotes every
 * skill's front matter, which anyone who can write the project's .claude/skills sets), and which
 * made the official SDK's stdio client drop the whole connection.
 *
 * Errors, JSON-RPC ones and `isError` results of text alone, are fitted here, where every answer
 * leaves: each text cut and escaped (errorText). Many name what the caller sent, and the SDK's own (a
 * tool's arguments checked before cairn's handler runs, a URI it cannot parse) name it whole:
 * an 11 MB unknown key came back as an 11 MB error, which the client dropped with the connection.
 */
export function answerThatFits(answer: JSONRPCMessage): JSONRPCMessage {
  if ("error" in answer) return { ...answer, error: fitError(answer.error as Failure) };
  if (!("result" in answer)) return answer;
  // An error phrased as text alone (cairn's own, or the SDK's check of a tool's arguments) is cut
  // like an error's message. One with structured content (a failed `cli` command's whole --json
  // output, an agent run's) is a command's result, fitted where it was made: cut, its JSON would
  // no longer parse.
  if (answer.result.isError === true && !("structuredContent" in answer.result)) {
    return { ...answer, result: fitErrorResult(answer.result as { content?: unknown }) } as JSONRPCMessage;
  }
  // A tool's result and a resource read were fitted where they were made, at less cost.
  if ("content" in answer.result || "contents" in answer.result) return answer;
  // Its size is unknown without measuring it: taken as past what surely fits.
  const why = tooLarge(
    answer,
    Number.POSITIVE_INFINITY,
    "ask for less (a page, one item at a time), or remove what makes it so large",
  );
  if (!why) return answer;
  return { jsonrpc: "2.0", id: answer.id, error: { code: ProtocolErrorCode.InternalError, message: why } };
}
