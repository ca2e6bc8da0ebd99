import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, launchChromium, startUi, type UiProcess } from "../helpers/browser.js";
import { cairn, initWorkspace } from "../helpers/workspace.js";

/**
 * Text that would read differently than it is: a right-to-left override in an agent's title. The
 * terminal shows such characters by their code; the dashboard must not let them reorder the page.
 */

const run = browserAvailable() ? describe : describe.skip;

let workspace: { dir: string; cleanup: () => void };
let ui: UiProcess;
let browser: Browser;

run("invisible characters in the dashboard", () => {
  beforeAll(async () => {
    workspace = initWorkspace();
    // Shown raw, this reads "approve the release: tests pass" with the real words reversed.
    expect(cairn(workspace.dir, ["task", "add", "approve \u202essap stset\u202c zero\u200bwidth"]).code).toBe(
      0,
    );
    [ui, browser] = await Promise.all([startUi(workspace.dir), launchChromium()]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await ui?.stop();
    workspace?.cleanup();
  });

  it("shows bidi overrides and zero-width characters by their code, as the CLI does", async () => {
    const page = await browser.newPage();
    await page.goto(ui.url);
    await page.goto(`${ui.base}/tasks/T-1`);
    const title = page.locator("h1 .text");
    await expect.poll(() => title.count()).toBe(1);
    const shown = await title.textContent();
    expect(shown).toBe("approve \\u202essap stset\\u202c zero\\u200bwidth");
    expect(cairn(workspace.dir, ["task", "show", "T-1"]).stdout).toContain(shown as string);
    await page.close();
  });
});
