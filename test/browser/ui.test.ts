import { mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browserAvailable,
  flakyLink,
  launchChromium,
  rawRequest,
  startUi,
  type UiProcess,
} from "../helpers/browser.js";
import { HOSTILE_TITLE, type Seeded, seedWorkspace } from "../helpers/ui-seed.js";
import { cairnAsync, REPO_ROOT } from "../helpers/workspace.js";

/**
 * `cairn ui` in real headless Chromium: one seeded workspace, one `cairn ui` process and one
 * browser shared by the whole file. Each page records console errors and CSP violations.
 */

const SHOTS = process.env.CAIRN_UI_SCREENSHOTS ?? join(tmpdir(), "cairn-ui-screenshots");
const AXE = readFileSync(join(REPO_ROOT, "node_modules", "axe-core", "axe.min.js"), "utf8");

let seeded: Seeded;
let ui: UiProcess;
let browser: Browser;
let context: BrowserContext;
const problems: string[] = [];

async function openPage(path: string, watch = true): Promise<Page> {
  const page = await context.newPage();
  if (watch) {
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning")
        problems.push(`${path}: console ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`${path}: ${error.message}`));
  }
  await page.goto(`${ui.base}${path}`);
  return page;
}

/** The text a person reads (laid out, with line breaks between blocks), not the raw text nodes. */
// biome-ignore lint/performance/useDomNodeTextContent: layout-aware text is the point of the check.
const textOf = (locator: Locator) => locator.evaluate((element) => (element as HTMLElement).innerText);

/** Move within the app the way a link click does (history push), without reloading the page. */
async function go(page: Page, path: string): Promise<void> {
  await page.evaluate((to) => {
    history.pushState(null, "", to);
    dispatchEvent(new PopStateEvent("popstate"));
  }, `${ui.prefix}${path}`);
  // Let the app render the new route before anyone looks at it.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

const cspViolations = (page: Page) => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);

async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const result = await page.evaluate(() =>
    (
      window as unknown as {
        axe: {
          run: (
            d: Document,
            o: unknown,
          ) => Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21aa", "best-practice"] },
    }),
  );
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

const run = browserAvailable() ? describe : describe.skip;

run("cairn ui in headless Chromium", () => {
  beforeAll(async () => {
    [seeded, browser] = await Promise.all([
      seedWorkspace(),
      launchChromium(["--host-resolver-rules=MAP evil.test 127.0.0.1"]),
    ]);
    ui = await startUi(seeded.dir);
    context = await browser.newContext({
      viewport: { width: 1100, height: 800 },
      deviceScaleFactor: 1,
      reducedMotion: "reduce",
      timezoneId: "UTC",
      locale: "en-US",
      colorScheme: "light",
    });
    await context.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { __csp: string[] }).__csp = seen;
      document.addEventListener("securitypolicyviolation", (event) => seen.push(event.violatedDirective));
    });
    // The printed URL's token is exchanged for the cookie, and the address bar loses the token.
    const page = await context.newPage();
    await page.goto(ui.url);
    expect(page.url()).toBe(`${ui.base}/`);
    await page.close();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ui?.stop();
    await seeded?.close();
    seeded?.cleanup();
  });

  it("renders Now: the needs-a-human inbox, the ready queue, claims, goals and activity", async () => {
    const page = await openPage("/");
    const main = page.locator("main");
    await expect.poll(() => main.locator("h2").allTextContents()).toContain("Needs a human 4");
    const text = await textOf(main);
    expect(text).toContain("waiting for the 1.0 changelog");
    expect(text).toContain("Which tokenizer should rank use?");
    expect(text).toMatch(/review\s+AT-7\s+of\s+G-1/);
    expect(text).toContain("Ready to claim");
    expect(text).toMatch(/T-2\s+Tokenise notes\s+A-1\s+lease/);
    await expect.poll(() => textOf(page.locator("#agents-slot"))).toMatch(/Local agents: 0 ok, 2 never ran/);
    await expect.poll(() => page.locator(".badge").getAttribute("data-state")).toBe("live");
    expect(await textOf(page.locator(".asof"))).toMatch(/data as of \d\d:\d\d:\d\d/);
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({
      path: join(SHOTS, "ui-now.png"),
      animations: "disabled",
      caret: "hide",
      fullPage: true,
    });
    await page.close();
  });

  it("shows a task's evidence: the command cairn ran, its exit code and output, apart from a bare claim and from a tick the checkout has moved past", async () => {
    const page = await openPage(`/tasks/${seeded.verifiedTask}`);
    const criteria = page.locator("li.criterion");
    await expect.poll(() => criteria.count()).toBe(2);
    // The goals seeded after the check changed the checkout: the tick no longer holds, and says so.
    const stale = await textOf(criteria.nth(0));
    expect(stale).toContain("no longer holds");
    expect(stale).toContain("was checked on another tree");
    expect(stale).not.toContain("verified by cairn");
    await seeded.cli(["task", "check", seeded.verifiedTask, "--n", "1"], "ada");
    await expect.poll(() => textOf(criteria.nth(0))).toContain("verified by cairn");
    const verified = await textOf(criteria.nth(0));
    expect(verified).toMatch(
      /cairn ran\s+\S*node -e console\.log\('all 12 checks passed'\)\s+exit 0, \d+ ms/,
    );
    expect(await textOf(criteria.nth(0).locator("pre.tail"))).toContain("all 12 checks passed");
    expect(verified).toMatch(/checked by A-1\s+\d+\s?(s|min) ago/);
    const claimed = await textOf(criteria.nth(1));
    expect(claimed).toContain("claimed (no command run)");
    // A check bo added to the owner's task it holds passed, but says only what bo says.
    await seeded.cli(["task", "check", "T-6", "--n", "1"], "bo");
    const own = await openPage("/tasks/T-6");
    await expect.poll(() => textOf(own.locator("li.criterion"))).toContain("passed its holder's own check");
    expect(await textOf(own.locator("li.criterion"))).toContain("added by A-2, not the task's author");
    expect(await textOf(own.locator("main"))).toContain("0 of 1 verified by cairn");
    await own.close();
    // The seed's rules changed while the task was claimed, first seen in a call of bo's.
    expect(await textOf(page.locator("main"))).toMatch(
      /The rules in cairn\.toml changed since it was added: roles\.reviewer, .+, first seen in a call of A-2 \(bo\)\./,
    );
    expect(await textOf(page.locator("main"))).toMatch(/Waiting on this\s+T-3\s+blocked/);
    await expect.poll(() => page.locator("ol.events li").count()).toBeGreaterThan(2);
    await page.close();
  });

  it("renders agent-written text as text and links the ids in it", async () => {
    const page = await openPage("/tasks/T-4");
    await expect.poll(() => textOf(page.locator("h1"))).toContain('<img src=x onerror="window.__pwned=1">');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator("main img, main b").count()).toBe(0);
    expect(await page.locator(`h1 a[href='${ui.prefix}/tasks/T-1']`).count()).toBe(1);
    expect(await page.locator(`.context a[href='${ui.prefix}/goals/G-1']`).count()).toBe(1);
    expect(HOSTILE_TITLE).toContain("<img");
    await page.close();
  });

  it("renders every other view with seeded data", async () => {
    const views: [string, RegExp][] = [
      ["/board", /Blocked 2[\s\S]*waiting for the 1\.0 changelog/],
      ["/board", /1\/2 verified,\s+1 claimed only/],
      ["/tasks", /Showing 1–\d+ of \d+/],
      ["/goals", /G-1/],
      [`/goals/${"G-1"}`, /evaluators frozen at sha256:/],
      ["/attempts/AT-2", /regression in score-eval/],
      ["/attempts/AT-1", /score-eval\s+\(score\) repeat 3: exit 0, value/],
      [`/runs/R-1`, /Frozen evaluators/],
      ["/review", /AT-7\s+of\s+G-1/],
      ["/activity", /attempt\.review\s+AT-7/],
      [
        "/agents",
        /ada[\s\S]*bo[\s\S]*Schedules and health[\s\S]*notes-sync \/ hourly[\s\S]*never ran[\s\S]*Triggered runs[\s\S]*notes-sync via cli: AR-1 ok/,
      ],
      ["/system", /Database[\s\S]*(KB|MB)/],
    ];
    const page = await openPage("/");
    for (const [path, expected] of views) {
      await go(page, path);
      await expect.poll(() => textOf(page.locator("main")), { message: path }).toMatch(expected);
    }
    await page.close();
  });

  it("draws the attempts chart: a point per attempt by verdict, the running best, the baseline band", async () => {
    const page = await openPage("/goals/G-1");
    const chart = page.locator("svg.attempts-chart");
    await expect.poll(() => chart.locator("circle").count()).toBe(7);
    expect(await chart.locator("circle[data-verdict=keep]").count()).toBe(4);
    expect(await chart.locator("circle[data-verdict=revert]").count()).toBe(2);
    expect(await chart.locator("circle[data-verdict=review]").count()).toBe(1);
    expect(await chart.locator("path.best").count()).toBe(1);
    expect(await chart.locator("rect.band").count()).toBe(1);
    expect(await textOf(page.locator("main code.hash"))).toMatch(/^sha256:/);
    await chart.scrollIntoViewIfNeeded();
    await page
      .locator("figure.chart")
      .first()
      .screenshot({ path: join(SHOTS, "ui-goal-chart.png"), animations: "disabled" });
    await page.close();
  });

  it("keeps every view and filter in the URL, through a reload, and moves by keyboard", async () => {
    const page = await openPage("/tasks?status=open&order=title&per=2");
    await expect.poll(() => textOf(page.locator(".summary"))).toMatch(/Showing 1–2 of \d+/);
    const firstPage = await page.locator("tbody tr").allInnerTexts();
    await page.getByRole("link", { name: "Next" }).click();
    await expect.poll(() => page.url()).toContain("page=2");
    await expect.poll(() => textOf(page.locator(".summary"))).toMatch(/Showing 3–4 of/);
    await page.reload();
    await expect.poll(() => textOf(page.locator(".summary"))).toMatch(/Showing 3–4 of/);
    expect(await page.locator("select[name=order]").inputValue()).toBe("title");
    expect(await page.locator("tbody tr").allInnerTexts()).not.toEqual(firstPage);
    await page.keyboard.press("g");
    await page.keyboard.press("b");
    await expect.poll(() => page.url()).toBe(`${ui.base}/board`);
    await expect.poll(() => page.locator("li.card").count()).toBeGreaterThan(3);
    await page.keyboard.press("j");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("href"))).toMatch(
      new RegExp(`^${ui.prefix}/tasks/T-\\d+$`),
    );
    await page.keyboard.press("Enter");
    await expect.poll(() => page.url()).toMatch(/\/tasks\/T-\d+$/);
    await page.goBack();
    await expect.poll(() => page.url()).toBe(`${ui.base}/board`);
    await page.close();
  });

  it("shows a CLI write within a second", async () => {
    const page = await openPage("/");
    await expect.poll(() => page.locator(".badge").getAttribute("data-state")).toBe("live");
    const added = await cairnAsync(seeded.dir, ["task", "add", "Appeared live", "--priority", "must"]);
    expect(added.code).toBe(0);
    const written = Date.now();
    await page.locator("main", { hasText: "Appeared live" }).waitFor({ timeout: 1_000 });
    expect(Date.now() - written).toBeLessThan(1_000);
    await page.close();
  });

  it("says when the connection drops, and replays what it missed on reconnect", async () => {
    const link = await flakyLink(ui.port);
    const page = await context.newPage();
    try {
      await page.goto(`${link.origin}${ui.prefix}/?k=${ui.token}`);
      await page.goto(`${link.origin}${ui.prefix}/system`);
      await expect.poll(() => page.locator(".badge").getAttribute("data-state")).toBe("live");
      link.cut();
      await expect.poll(() => page.locator(".badge").getAttribute("data-state")).toBe("reconnecting");
      const added = await cairnAsync(seeded.dir, ["task", "add", "Written while the page was away"]);
      expect(added.code).toBe(0);
      const recent = await rawRequest(ui.port, {
        path: `${ui.prefix}/api/activity?limit=1`,
        headers: { Host: `127.0.0.1:${ui.port}`, Authorization: `Bearer ${ui.token}` },
      });
      const lastId = (JSON.parse(recent.body) as { events: { id: number }[] }).events[0]?.id;
      link.restore();
      await expect
        .poll(() => page.locator(".badge").getAttribute("data-state"), { timeout: 10_000 })
        .toBe("live");
      // The id shown comes only from a server-sent message: the replay after Last-Event-ID.
      await expect.poll(() => textOf(page.locator("main"))).toContain(`last event seen #${lastId}`);
    } finally {
      await page.close();
      await link.close();
    }
  });

  it("passes axe with 0 violations in light and dark, with no CSP violation or console error", async () => {
    const page = await openPage("/");
    for (const path of ["/", "/board", `/tasks/${seeded.verifiedTask}`, "/goals/G-1"]) {
      await go(page, path);
      await page.locator("main h1").waitFor();
      await page.waitForFunction(() => !document.querySelector("[aria-busy=true]"));
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await axeViolations(page), `${scheme} ${path}`).toEqual([]);
      }
    }
    expect(await cspViolations(page)).toEqual([]);
    await page.close();
    // The policy is really in force: an injected inline script does not run.
    const probe = await openPage("/", false);
    await probe.evaluate(() => {
      const script = document.createElement("script");
      script.textContent = "window.__inline = 1";
      document.head.append(script);
    });
    expect(await probe.evaluate(() => (window as unknown as { __inline?: number }).__inline)).toBeUndefined();
    expect(await cspViolations(probe)).toContain("script-src-elem");
    await probe.close();
    expect(problems).toEqual([]);
  });

  it("answers a rebound DNS name with 421, in the browser", async () => {
    const page = await context.newPage();
    const response = await page.goto(`http://evil.test:${ui.port}${ui.prefix}/api/now`);
    expect(response?.status()).toBe(421);
    await page.close();
  });

  it("sends the dashboard's credential to no other server on 127.0.0.1, whatever port it listens on", async () => {
    // Cookies ignore ports: any listener on loopback (another user's, a dev server) is the same
    // site, and whatever the browser keeps for the dashboard must not reach it.
    const seen: { url: string; headers: string }[] = [];
    const other: Server = createServer((request, response) => {
      seen.push({ url: request.url ?? "", headers: JSON.stringify(request.headers) });
      response.writeHead(200, { "Content-Type": "text/html" });
      response.end("<!doctype html><title>another listener</title>");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const otherOrigin = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    const page = await context.newPage();
    try {
      await page.goto(ui.url);
      await page.locator("main h1").waitFor();
      await expect.poll(() => page.locator(".badge").getAttribute("data-state")).toBe("live");
      for (const path of ["/", "/tasks/T-1", "/api/now", "/events", "/assets/favicon.svg"]) {
        await page.goto(`${otherOrigin}${path}`);
      }
      expect(seen.map((request) => request.url)).toContain("/api/now");
      for (const request of seen) {
        expect(request.headers, request.url).not.toContain(ui.token);
        expect(request.headers, request.url).not.toContain("cairn_ui");
      }
      expect(await context.cookies(`${otherOrigin}/`)).toEqual([]);
    } finally {
      await page.close();
      // A socket the browser opened ahead of a navigation it never made holds close() until the
      // server's headers timeout (60 s, the test's whole budget): end every connection first.
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("refuses a cross-site page: no CORS, no cookie, and a 403 for the attempt", async () => {
    const foreign: Server = createServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("<!doctype html><title>elsewhere</title>");
    });
    await new Promise<void>((resolve) => foreign.listen(0, "127.0.0.1", resolve));
    const foreignPort = (foreign.address() as { port: number }).port;
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${foreignPort}/`);
    const outcome = await page.evaluate(async (target) => {
      try {
        const response = await fetch(target, { credentials: "include" });
        return `status ${response.status}`;
      } catch (error) {
        return `failed: ${(error as Error).message}`;
      }
    }, `${ui.base}/api/now`);
    expect(outcome).toMatch(/^failed/);
    // Even an opaque read is blocked: every answer says Cross-Origin-Resource-Policy: same-origin.
    const opaque = await page.evaluate(async (target) => {
      try {
        return (await fetch(target, { mode: "no-cors", credentials: "include" })).type;
      } catch (error) {
        return `failed: ${(error as Error).message}`;
      }
    }, `${ui.base}/api/now`);
    expect(opaque).toMatch(/^failed/);
    await page.close();
    foreign.close();
    const forged = await rawRequest(ui.port, {
      path: `${ui.prefix}/api/now`,
      headers: {
        Host: `127.0.0.1:${ui.port}`,
        Authorization: `Bearer ${ui.token}`,
        "Sec-Fetch-Site": "same-site",
      },
    });
    expect(forged.status).toBe(403);
  });
});
