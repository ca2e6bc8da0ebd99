import { Transform, type TransformCallback } from "node:stream";
import { parseJSONRPCMessage } from "@modelcontextprotocol/server";

/** JSON-RPC error codes for faults found before a message reaches the SDK. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
/**
 * The longest request id taken. JSON-RPC sets no bound, and an id is kept for as long as its
 * request is in flight (and sent back with its answer): sixty calls with ids of 8 MB, queued
 * behind a busy check, held 550 MB. No client numbers its requests with more than a few dozen.
 */
const MAX_ID_CHARS = 256;

export type ProtocolFaultReply = (reply: {
  jsonrpc: "2.0";
  id: string | number | null;
  error: { code: number; message: string };
}) => void;

/**
 * Sits between stdin and the SDK's stdio transport. The transport silently drops a line that is
 * not JSON, and drops JSON that is not JSON-RPC: a client then waits forever. Here every such
 * line is answered (-32700 with a null id, or -32600), and only well-formed messages pass on.
 * An oversized line is answered and discarded instead of closing the connection. A request
 * whose id is already in use by one in flight is answered too: the SDK keeps one cancel per id,
 * so the second took the first's, and cancelling left the first (and every process it started)
 * running until the client went.
 */
export class LineGuard extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;
  /** Ids of the client's requests still in flight, typed (`1` and `"1"` are two ids). */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly reply: ProtocolFaultReply,
    private readonly maxLineBytes: number,
    /**
     * A wait while the client is not reading what was already sent (undefined when it is). Input
     * is held meanwhile, so stdin backs up to the client: a client that writes requests and never
     * reads their answers would otherwise have the server read, run and hold every answer.
     */
    private readonly outputBackedUp: () => Promise<void> | undefined = () => undefined,
  ) {
    super();
  }

  override _transform(chunk: Buffer, encoding: BufferEncoding, done: TransformCallback): void {
    const backedUp = this.outputBackedUp();
    if (backedUp) {
      void backedUp.then(() => this._transform(chunk, encoding, done));
      return;
    }
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) {
        this.hold(chunk.subarray(start));
        break;
      }
      this.hold(chunk.subarray(start, newline));
      this.finishLine();
      start = newline + 1;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.pendingBytes === 0 && !this.discarding) {
      done();
      return;
    }
    this.finishLine();
    // A last message with no line break, then the end of input: handed on and ended in the same
    // turn, the transport closed before the server had read it, and the request went unanswered
    // and undone. Ended a turn later, it goes as one ended by a line break does.
    setImmediate(done);
  }

  private hold(part: Buffer): void {
    if (this.discarding || part.length === 0) return;
    if (this.pendingBytes + part.length > this.maxLineBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      return;
    }
    this.pending.push(part);
    this.pendingBytes += part.length;
  }

  private finishLine(): void {
    const line = Buffer.concat(this.pending, this.pendingBytes).toString("utf8").replace(/\r$/, "");
    const tooLong = this.discarding;
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
    if (tooLong) {
      this.fault(null, INVALID_REQUEST, `Invalid Request: message exceeds ${this.maxLineBytes} bytes`);
      return;
    }
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.fault(null, PARSE_ERROR, `Parse error: ${(error as Error).message}`);
      return;
    }
    try {
      parseJSONRPCMessage(value);
    } catch {
      const id = (value as { id?: unknown } | null)?.id;
      const usableId = typeof id === "string" || typeof id === "number" ? id : null;
      this.fault(usableId, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message");
      return;
    }
    if (!this.admit(value as { id?: unknown; method?: unknown; params?: unknown })) return;
    this.push(`${line}\n`);
  }

  /** Note a request as in flight, or answer one whose id is; a cancel ends the id's flight. */
  private admit(message: { id?: unknown; method?: unknown; params?: unknown }): boolean {
    if (typeof message.method !== "string") return true;
    if (message.id === undefined) {
      if (message.method === "notifications/cancelled")
        this.settle((message.params as { requestId?: unknown } | undefined)?.requestId);
      return true;
    }
    if (typeof message.id === "string" && message.id.length > MAX_ID_CHARS) {
      this.fault(null, INVALID_REQUEST, `Invalid Request: an id holds at most ${MAX_ID_CHARS} characters`);
      return false;
    }
    const key = idKey(message.id);
    if (this.inFlight.has(key)) {
      this.fault(
        message.id as string | number,
        INVALID_REQUEST,
        `Invalid Request: id ${JSON.stringify(message.id)} is already in use by a request in flight`,
      );
      return false;
    }
    this.inFlight.add(key);
    return true;
  }

  /** The request with this id was answered (or cancelled): its id may be used again. */
  settle(id: unknown): void {
    this.inFlight.delete(idKey(id));
  }

  private fault(id: string | number | null, code: number, message: string): void {
    this.reply({ jsonrpc: "2.0", id, error: { code, message } });
  }
}

const idKey = (id: unknown) => `${typeof id}:${String(id)}`;
