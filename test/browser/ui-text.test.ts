import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, launchChromium, startUi, type UiProcess } from "../helpers/browser.js";
import { cairn, initWorkspace } from "../helpers/workspace.js";

/**
 * Text that would read differently than it is: a right-to-left override in an agent's title. The
 * terminal shows such characters by their code; the dashboard must not let them reorder the page,
 * nor let text that cannot wrap be drawn where another column's would be.
 */

const run = browserAvailable() ? describe : describe.skip;

let workspace: { dir: string; cleanup: () => void };
let ui: UiProcess;
let browser: Browser;

run("agents' text in the dashboard", () => {
  beforeAll(async () => {
    workspace = initWorkspace();
    // Shown raw, this reads "approve the release: tests pass" with the real words reversed.
    expect(cairn(workspace.dir, ["task", "add", "approve \u202essap stset\u202c zero\u200bwidth"]).code).toBe(
      0,
    );
    // Every other field an agent writes: a label, a check's command, and what the check prints.
    const check = { text: "prints", verify: ["printf", "%s", "ok \u202etset mpn\u202c"] };
    const added = cairn(workspace.dir, [
      "task",
      "add",
      "checked",
      "--labels",
      "ok\u202elive",
      "--criteria",
      JSON.stringify(check),
    ]);
    expect(added.code).toBe(0);
    expect(cairn(workspace.dir, ["task", "claim", "T-2"]).code).toBe(0);
    expect(cairn(workspace.dir, ["task", "check", "T-2", "--n", "1"]).code).toBe(0);
    // A title that cannot wrap: no-break spaces carry words past its column, into the next one.
    const spill = `tidy docs${"\u00a0".repeat(90)}nothing\u00a0claimed;\u00a0all\u00a0verified`;
    expect(cairn(workspace.dir, ["task", "add", spill]).code).toBe(0);
    // Marks piled on one letter are drawn over the rows above and below it.
    expect(cairn(workspace.dir, ["task", "add", `pile${"\u030d".repeat(300)} up`]).code).toBe(0);
    [ui, browser] = await Promise.all([startUi(workspace.dir), launchChromium()]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await ui?.stop();
    workspace?.cleanup();
  });

  /** The title a task's page shows. */
  async function titleOf(task: string): Promise<string | null> {
    const page = await browser.newPage();
    await page.goto(ui.url);
    await page.goto(`${ui.base}/tasks/${task}`);
    const title = page.locator("h1 .text");
    await expect.poll(() => title.count()).toBe(1);
    const shown = await title.textContent();
    await page.close();
    return shown;
  }

  it("shows bidi overrides and zero-width characters by their code, as the CLI does", async () => {
    const shown = await titleOf("T-1");
    expect(shown).toBe("approve \\u202essap stset\\u202c zero\\u200bwidth");
    expect(cairn(workspace.dir, ["task", "show", "T-1"]).stdout).toContain(shown as string);
  });

  it("shows them by their code in every field an agent writes, not only in titles and notes", async () => {
    const page = await browser.newPage();
    await page.goto(ui.url);
    await page.goto(`${ui.base}/tasks/T-2`);
    const tail = page.locator("ol.criteria pre.tail");
    await expect.poll(() => tail.count()).toBe(1);
    const shown = await page.locator("main").textContent();
    // No override or zero-width character reaches the page: each is shown by its code.
    expect(shown).not.toMatch(/[\u200b\u202a-\u202e\u2066-\u2069]/);
    expect(shown).toContain("labels ok\\u202elive");
    expect(await page.locator("ol.criteria .muted code").first().textContent()).toBe(
      "printf %s ok \\u202etset mpn\\u202c",
    );
    expect(await tail.textContent()).toBe("ok \\u202etset mpn\\u202c");
    await page.close();
  });

  it("keeps an agent's text inside its own box: a title that cannot wrap does not spill into the next column", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(ui.url);
    for (const [path, box] of [
      ["/", "section"],
      ["/board", "li.card"],
    ] as const) {
      await page.goto(`${ui.base}${path}`);
      const title = page.locator(`${box} .text`, { hasText: "tidy docs" }).first();
      await expect.poll(() => title.count()).toBe(1);
      const inside = await title.evaluate((element, selector) => {
        const own = element.getBoundingClientRect();
        const container = (element.closest(selector) as Element).getBoundingClientRect();
        return own.left >= container.left && own.right <= container.right;
      }, box);
      expect(inside, path).toBe(true);
    }
    await page.close();
  });

  it("draws a few marks on one character, and shows those piled past them by their codes", async () => {
    expect(await titleOf("T-4")).toBe(`pile${"\u030d".repeat(8)}${"\\u030d".repeat(292)} up`);
  });
});
