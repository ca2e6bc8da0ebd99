import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
} from "@modelcontextprotocol/server";
import { quoteValue } from "../../kernel/text.js";
import { readFits } from "./results.js";
import { wrapHandler } from "./wrap-handler.js";

/**
 * Where the SDK's own answer to a faulty request would hurt the client: a hostile name or URI
 * echoed whole and raw, a caller's mistake reported as the server's, a session renegotiated
 * mid-way. Each wraps the SDK's handler of its method (createServer installs them).
 */

/**
 * The SDK's `resources/read` names the URI whole when it cannot parse it or no resource matches
 * it; a hostile one is quoted and truncated instead, like every value cairn echoes in an error.
 * A read too large for one message is an error rather than a message the client drops with its
 * connection.
 */
export function quoteUrisReadsMiss(server: McpServer): void {
  wrapHandler(server, "resources/read", (original) => async (request, ctx) => {
    const uri = String(request.params?.uri ?? "");
    if (!URL.canParse(uri)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `resource URI ${quoteValue(uri)} is invalid`, {
        uri,
        reason: "invalid_uri",
      });
    }
    try {
      return readFits((await original(request, ctx)) as { contents: { text?: string; blob?: string }[] });
    } catch (error) {
      if (error instanceof ResourceNotFoundError && error.message.includes(uri)) {
        throw new ResourceNotFoundError(uri, `no resource ${quoteValue(uri)}`);
      }
      throw error;
    }
  });
}

/**
 * The SDK answers a tool or prompt it does not know by naming it whole and raw ("Tool NAME not
 * found"); the name is quoted instead, like every value cairn echoes in an error: truncated (a
 * 5 MB one is past what a client reads in one message) and escaped (a control character in it
 * would act on the terminal that shows the error).
 */
export function quoteNamesCallsMiss(server: McpServer): void {
  for (const [method, kind] of [
    ["tools/call", "Tool"],
    ["prompts/get", "Prompt"],
  ] as const) {
    wrapHandler(server, method, (original) => async (request, ctx) => {
      try {
        return await original(request, ctx);
      } catch (error) {
        const name = request.params?.name;
        if (!(error instanceof ProtocolError) || typeof name !== "string") throw error;
        const named = `${kind} ${name} `;
        if (!error.message.startsWith(named)) throw error;
        throw new ProtocolError(
          error.code,
          `${kind} ${quoteValue(name)} ${error.message.slice(named.length)}`,
          error.data,
        );
      }
    });
  }
}

/** The longest URI the SDK matches against a resource template (its UriTemplate's limit). */
const MAX_URI_CHARS = 1_000_000;

/**
 * A URI longer than the SDK matches is the caller's mistake, invalid params: the SDK's template
 * match threw a plain error for it, which went out as an internal error (-32603). It is measured
 * as the SDK matches it, parsed (a parsed URL escapes what a raw one holds, so it can grow); one
 * that does not parse is answered as invalid where it is read.
 */
export function longUrisAreInvalid(server: McpServer): void {
  for (const method of ["resources/read", "resources/subscribe"]) {
    wrapHandler(server, method, (original) => async (request, ctx) => {
      const uri = request.params?.uri;
      if (typeof uri === "string" && URL.canParse(uri) && new URL(uri).href.length > MAX_URI_CHARS) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `resource URI ${quoteValue(uri)} is longer than the ${MAX_URI_CHARS} characters a URI may hold`,
          { reason: "uri_too_long" },
        );
      }
      return original(request, ctx);
    });
  }
}

/**
 * A client initializes once, first. A second `initialize` renegotiated the session mid-way: the
 * protocol version (down to 2024-11-05) and the capabilities the server answers by.
 */
export function initializeOnce(server: McpServer): void {
  let initialized = false;
  wrapHandler(server, "initialize", (original) => async (request, ctx) => {
    if (initialized) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        "this session is already initialized: a client sends initialize once, first",
      );
    }
    // Marked before the answer is made: a second one sent right behind the first finds it taken.
    initialized = true;
    return original(request, ctx);
  });
}
