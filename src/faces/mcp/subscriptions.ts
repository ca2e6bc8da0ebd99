import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  UriTemplate,
} from "@modelcontextprotocol/server";
import { BACKGROUND, type Session } from "../../commands/context.js";
import { dispatch } from "../../commands/dispatch.js";
import { COMMANDS_BY_NAME } from "../../commands/registry.js";
import {
  idsShown,
  type JournalTouch,
  mayHaveChanged,
  TOUCH_ALL,
  touchOf,
  watchWorkspace,
} from "../../commands/resource-changes.js";
import { RESOURCES } from "../../commands/resources.js";
import { crypto } from "../../kernel/builtins.js";
import { quoteValue } from "../../kernel/text.js";
import { readResourceAs, runner } from "./run-command.js";
import { wrapHandler } from "./wrap-handler.js";

/**
 * A burst settles this long before the first look; later looks are at least MIN_GAP_MS apart
 * (the dashboard's cadence), so any burst costs at most ten looks a second, each one journal
 * read plus a re-read of the subscribed resources it may have touched.
 */
const SETTLE_MS = 5;
const MIN_GAP_MS = 100;
/** Journal events read per page, and pages per look: more missed than that counts as "everything". */
const PAGE = 500;
const MAX_PAGES = 20;
/**
 * A journal read that failed (the store busy past its timeout, the server restarting) is tried
 * again after this, doubling up to the longest wait while it keeps failing.
 */
const RETRY_FIRST_MS = 200;
const RETRY_LONGEST_MS = 30_000;
/** Subscriptions one session may hold: each costs a re-read when the journal touches it. */
const MAX_SUBSCRIPTIONS = 1_000;
/**
 * The longest URI a subscription is kept under, as the client sent it (the longest a skill file's
 * URI may be; a task's or goal's is far shorter). The URI is read as a URL, which drops the tabs
 * and line breaks in it, so `cairn://board` padded with 30 MB of tabs read as the board: each of
 * a thousand subscriptions held its megabytes, and every update sent them back.
 */
const MAX_SUBSCRIBED_URI_CHARS = 4_096;

/** The resources as `resources/read` matches them: in registration order, fixed URIs exactly. */
const MATCHERS = RESOURCES.map((spec) => ({
  spec,
  template: spec.uri.includes("{") ? new UriTemplate(spec.uri) : undefined,
}));

/**
 * What the caller reads at a URI, through the same resource specs and commands as
 * `resources/read` (skill files through `skill resource`). Only its digest and the ids it shows are kept.
 */
async function readAs(session: Session, uri: string): Promise<unknown> {
  const run = runner(session, uri, BACKGROUND);
  if (uri.startsWith("skill://")) {
    // As resources/read answers it: a skill file that is not there is invalid params too.
    const out = await run("skill resource", { uri }).catch((error: unknown) => {
      throw error instanceof ResourceNotFoundError
        ? new ProtocolError(ProtocolErrorCode.InvalidParams, error.message)
        : error;
    });
    // As resources/read answers it: a path the skill refuses (one climbing out of its folder) is
    // no resource, so there is nothing to subscribe to.
    const refused = out.refused as { reason: string } | undefined;
    if (refused) throw new ProtocolError(ProtocolErrorCode.InvalidParams, refused.reason);
    return out;
  }
  for (const { spec, template } of MATCHERS) {
    const variables = template ? template.match(uri) : spec.uri === uri ? {} : null;
    if (variables) return readResourceAs(spec, variables, run);
  }
  throw new ResourceNotFoundError(uri, `no resource ${quoteValue(uri)}`);
}

/**
 * The URI `resources/read` would read: the SDK parses a URI as a URL before matching it, so
 * `CAIRN://board`, ` cairn://board` and `cairn://task/T-9/../T-1` read cairn://board and T-1. A
 * subscription is read, and matched against the journal, the same way; the client still hears
 * of it by the URI it sent.
 */
const asRead = (uri: string) => (URL.canParse(uri) ? new URL(uri).href : uri);

/** What the feed keeps of a read: its digest, and the ids it showed (an event about one may change it). */
interface Seen {
  digest: string;
  shown: ReadonlySet<string>;
}

function seen(value: unknown): Seen {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return { digest: crypto().createHash("sha256").update(text).digest("base64url"), shown: idsShown(text) };
}

interface Activity {
  events: { id: number; action: string; subject: string; data: Record<string, unknown> }[];
}

/**
 * Pushes changes to this MCP client. Subscribed resources (`resources/subscribe`) get
 * `notifications/resources/updated` when what this session reads at their URI changed: the
 * journal, read from the last event seen, names the candidates, and each candidate is re-read as
 * the caller and compared with what it read before, so a notification never reports a change
 * the caller cannot see, and carries nothing but the URI. Skill files are compared when their
 * folders change on disk. `resources/list_changed` follows tasks or goals entering or leaving
 * the list; `tools/list_changed` and `resources/list_changed` follow the caller losing its
 * identity (retired), after which it is listed no tools and no resources. Looks are debounced, never on a request's path, and stop at close.
 */
export class ResourceFeed {
  private readonly subscribed = new Map<string, Seen>();
  /**
   * URIs whose subscription is being read (with how many requests for each): each holds a slot
   * under the cap until it settles.
   */
  private readonly arriving = new Map<string, number>();
  /** Requests seen, in order; and when a URI still arriving was last unsubscribed. */
  private requests = 0;
  private readonly withdrawn = new Map<string, number>();
  private cursor = 0;
  private watching: Promise<void> | undefined;
  private unwatch: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private journalDirty = false;
  private skillsDirty = false;
  private lastLook = 0;
  /** How long after a failed journal read the next look waits; 0 while reads succeed. */
  private retryWait = 0;
  private closed = false;
  private retired = false;
  /** A look was put off until the client reads what it was already sent. */
  private waitingForReader = false;

  constructor(
    private readonly server: McpServer,
    private readonly session: Session,
    /** The set of subscribed `skill://` files changed: the skill watcher re-reads what to watch. */
    private readonly skillSubscriptionsChanged: () => Promise<void> = async () => {},
    /**
     * A wait while the client is not reading what it was sent (undefined when it is). Looks are
     * put off meanwhile: other agents' writes would otherwise queue notifications in this
     * process's memory for as long as the client stalls, a look's worth at a time.
     */
    private readonly outputBackedUp: () => Promise<void> | undefined = () => undefined,
  ) {
    server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
    server.server.setRequestHandler("resources/subscribe", async (request, ctx) => {
      await this.subscribe(request.params.uri, ctx.mcpReq.signal);
      return {};
    });
    server.server.setRequestHandler("resources/unsubscribe", async (request) => {
      const { uri } = request.params;
      // A subscription still reading its baseline is withdrawn too: the later request wins.
      if (this.arriving.has(uri)) this.withdrawn.set(uri, ++this.requests);
      if (this.subscribed.delete(uri) && asRead(uri).startsWith("skill://"))
        void this.skillSubscriptionsChanged();
      return {};
    });
    // Listing means the client will want to hear that the list changed; a call may have written.
    wrapHandler(server, "tools/list", (original) => async (request, ctx) => {
      void this.start();
      if (this.retired) return { tools: [] };
      return original(request, ctx);
    });
    wrapHandler(server, "resources/list", (original) => async (request, ctx) => {
      void this.start();
      // As for tools: every read of a retired caller is refused, so nothing is listed to read.
      if (this.retired) return { resources: [] };
      return original(request, ctx);
    });
    wrapHandler(server, "tools/call", (original) => async (request, ctx) => {
      try {
        return await original(request, ctx);
      } finally {
        // This process's own writes: SQLite's data_version does not move for its own connection.
        if (this.watching) this.kick("journal");
      }
    });
  }

  /** The URIs this session is subscribed to, as they read (the skill watcher parses them). */
  subscribedUris(): string[] {
    return [...this.subscribed.keys()].map(asRead);
  }

  /** Skill (or command) files changed on disk: subscribed `skill://` resources are compared. */
  skillFilesChanged(): void {
    if ([...this.subscribed.keys()].some((uri) => asRead(uri).startsWith("skill://"))) this.kick("skills");
  }

  private async subscribe(uri: string, cancelled?: AbortSignal): Promise<void> {
    if (uri.length > MAX_SUBSCRIBED_URI_CHARS) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `cannot subscribe to ${quoteValue(uri)}: a subscribed URI holds at most ${MAX_SUBSCRIBED_URI_CHARS} characters`,
        { reason: "uri_too_long" },
      );
    }
    if (!/^(cairn|skill):\/\//.test(asRead(uri))) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `cannot subscribe to ${quoteValue(uri)}: not a cairn resource`,
      );
    }
    const known = this.subscribed.has(uri) || this.arriving.has(uri);
    if (!known && this.subscribed.size + this.arriving.size >= MAX_SUBSCRIPTIONS) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `this session already holds ${MAX_SUBSCRIPTIONS} subscriptions; unsubscribe from some first`,
      );
    }
    // The slot is taken before any wait: subscriptions sent all at once cannot pass the cap together.
    const order = ++this.requests;
    this.arriving.set(uri, (this.arriving.get(uri) ?? 0) + 1);
    try {
      // Watch first, then read the baseline: a write after the cursor is looked at, never lost.
      await this.start();
      // The baseline is what the caller reads now; an unknown resource fails the subscription.
      const baseline = seen(await readAs(this.session, asRead(uri)));
      // Unsubscribed after this request came, while its baseline was read: it stays unsubscribed.
      if ((this.withdrawn.get(uri) ?? 0) > order) return;
      // Cancelled by the client while its baseline was read: it gets no answer, so it takes the
      // subscription as never made, and must not hear of the resource afterwards.
      if (cancelled?.aborted) return;
      const fresh = !this.subscribed.has(uri);
      this.subscribed.set(uri, baseline);
      if (fresh && asRead(uri).startsWith("skill://")) {
        // A file below its skill's folder is watched from now on; an edit made while the watch was
        // being set up is caught by comparing once it is.
        await this.skillSubscriptionsChanged();
        this.kick("skills");
      }
    } finally {
      const left = (this.arriving.get(uri) ?? 1) - 1;
      if (left > 0) this.arriving.set(uri, left);
      else {
        this.arriving.delete(uri);
        this.withdrawn.delete(uri);
      }
    }
  }

  /** Start watching the workspace once; a session without a workspace retries on the next need. */
  private start(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.watching) return this.watching;
    this.watching = (async () => {
      const pulse = await this.run<{ last_event: number }>("pulse", {});
      this.cursor = Math.max(this.cursor, pulse?.last_event ?? 0);
      const unwatch = await watchWorkspace(this.session, () => this.kick("journal"));
      if (this.closed) unwatch();
      else this.unwatch = unwatch;
    })().catch(() => {
      this.watching = undefined;
    });
    return this.watching;
  }

  private kick(what: "journal" | "skills"): void {
    if (this.closed || this.retired) return;
    if (what === "journal") this.journalDirty = true;
    else this.skillsDirty = true;
    this.schedule();
  }

  /** One look at a time: what arrives during a look is looked at after it, MIN_GAP_MS on. */
  private schedule(): void {
    if (this.timer || this.running || this.waitingForReader || this.closed || this.retired) return;
    const wait = Math.max(SETTLE_MS, this.lastLook + Math.max(MIN_GAP_MS, this.retryWait) - Date.now());
    this.timer = setTimeout(() => void this.look(), wait);
    this.timer.unref();
  }

  private async look(): Promise<void> {
    this.timer = undefined;
    // Changes stay marked, and the look after the client reads again compares each subscribed
    // resource with what the client last heard of it: one notification for all it missed.
    const backedUp = this.outputBackedUp();
    if (backedUp) {
      this.waitingForReader = true;
      void backedUp.then(() => {
        this.waitingForReader = false;
        this.schedule();
      });
      return;
    }
    this.running = true;
    const journal = this.journalDirty;
    const skills = this.skillsDirty;
    this.journalDirty = false;
    this.skillsDirty = false;
    try {
      const touch = journal ? await this.readJournal() : undefined;
      if (touch?.listChanged) void this.server.server.sendResourceListChanged().catch(() => {});
      for (const [uri, before] of [...this.subscribed]) {
        if (this.closed || this.retired) return;
        const target = asRead(uri);
        const candidate = target.startsWith("skill://")
          ? skills
          : touch !== undefined && mayHaveChanged(target, touch, before.shown);
        if (!candidate) continue;
        const now = await readAs(this.session, target)
          .then(seen)
          .catch((error: Error) => seen({ error: error.message }));
        // Unchanged, or unsubscribed (or subscribed afresh) while it was read: say nothing.
        if (now.digest === before.digest || this.subscribed.get(uri) !== before) continue;
        this.subscribed.set(uri, now);
        void this.server.server.sendResourceUpdated({ uri }).catch(() => {});
      }
    } catch (error) {
      if (!this.closed) process.stderr.write(`cairn mcp: change feed: ${(error as Error).message}\n`);
    } finally {
      this.running = false;
      this.lastLook = Date.now();
      if (this.journalDirty || this.skillsDirty) this.schedule();
    }
  }

  /**
   * What the journal says changed since the last look, read through `activity` as the caller. A
   * read that fails is looked at again later, from the last event read: the change that rang
   * must not wait for the next write to be announced (or, pages in, be skipped for good).
   */
  private async readJournal(): Promise<JournalTouch | undefined> {
    const events: Activity["events"] = [];
    for (let page = 0; page < MAX_PAGES; page++) {
      const command = COMMANDS_BY_NAME.get("activity");
      if (!command) return undefined;
      const outcome = await dispatch(command, { after: this.cursor, limit: PAGE }, this.session, BACKGROUND);
      if (outcome.kind === "refused" && outcome.refusal.policy === "identity") {
        this.loseIdentity();
        return undefined;
      }
      if (outcome.kind !== "ok") {
        this.retryWait = Math.min(RETRY_LONGEST_MS, Math.max(RETRY_FIRST_MS, this.retryWait * 2));
        this.journalDirty = true;
        return events.length > 0 ? touchOf(events) : undefined;
      }
      this.retryWait = 0;
      const found = (outcome.value as Activity).events;
      events.push(...found);
      const last = found.at(-1);
      if (last) this.cursor = last.id;
      if (found.length < PAGE) return touchOf(events);
    }
    return TOUCH_ALL;
  }

  /**
   * Retired (or an ancestor retired): every call and read is refused now, so no tool and no
   * resource is listed, and the client hears that both lists changed (it would otherwise go on
   * offering every task it listed, each read now a refusal).
   */
  private loseIdentity(): void {
    this.retired = true;
    this.stopWatching();
    void this.server.server.sendToolListChanged().catch(() => {});
    void this.server.server.sendResourceListChanged().catch(() => {});
  }

  private async run<T>(name: string, input: Record<string, unknown>): Promise<T | undefined> {
    const command = COMMANDS_BY_NAME.get(name);
    if (!command) return undefined;
    const outcome = await dispatch(command, input, this.session, BACKGROUND);
    return outcome.kind === "ok" ? (outcome.value as T) : undefined;
  }

  private stopWatching(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.unwatch?.();
    this.unwatch = undefined;
  }

  close(): void {
    this.closed = true;
    this.stopWatching();
    this.subscribed.clear();
  }
}
