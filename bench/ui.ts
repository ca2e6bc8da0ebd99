import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { OWNER } from "../src/domains/identity/actor.js";
import { addTask } from "../src/domains/tasks/board.js";
import { openStore } from "../src/store/open.js";
import { PRIORITIES } from "../src/store/tasks.js";
import { header, ms, percentile, report } from "./report.js";
import { baseEnv, CAIRN, ROOT } from "./servers.js";

/**
 * `npm run bench -- ui`: the dashboard on a 20,000-task board. Server time to answer what the
 * Now page needs, a CLI write's latency to the page in headless Chromium, the page's weight and
 * the idle memory of `cairn ui`, each beside a floor measured in the same run.
 */

const BOARD_SIZE = 20_000;
const SAMPLES = 40;
const WRITES = 15;
const CHROMIUM = process.env.CAIRN_CHROMIUM ?? "/usr/bin/chromium";

interface Ui {
  child: ChildProcess;
  port: number;
  /** The launch's path prefix: every URL of the dashboard lives under it. */
  prefix: string;
  token: string;
}

function startUi(dir: string, args: string[] = []): Promise<Ui> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CAIRN, "ui", "--port", "0", ...args], {
      cwd: dir,
      env: baseEnv(),
    });
    let out = "";
    child.on("exit", (code) => reject(new Error(`cairn ui exited ${code}`)));
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const match = /127\.0\.0\.1:(\d+)(\/[A-Za-z0-9_-]+)\/\?k=([A-Za-z0-9_-]+)/.exec(out);
      if (match)
        resolve({ child, port: Number(match[1]), prefix: match[2] as string, token: match[3] as string });
    });
  });
}

function get(ui: Ui, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      {
        host: "127.0.0.1",
        port: ui.port,
        path: `${ui.prefix}${path}`,
        headers: { Host: `127.0.0.1:${ui.port}`, Authorization: `Bearer ${ui.token}` },
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`${path}: ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function timed(ui: Ui, paths: string[]): Promise<number[]> {
  for (let i = 0; i < 5; i++) for (const path of paths) await get(ui, path);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    let total = 0;
    for (const path of paths) total += await get(ui, path);
    samples.push(total);
  }
  return samples;
}

function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

const gz = (bytes: Buffer | Uint8Array) => gzipSync(bytes, { level: 9 }).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

async function seed(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "cairn-bench-ui-"));
  const init = spawnSync(process.execPath, [CAIRN, "init"], { cwd: dir, env: baseEnv(), encoding: "utf8" });
  if (init.status !== 0) throw new Error(init.stderr);
  const store = openStore(join(dir, ".cairn", "cairn.db"));
  const now = new Date().toISOString();
  for (let epic = 0; epic < BOARD_SIZE / 100; epic++) {
    const parent = await addTask(store, OWNER, { title: `epic ${epic}`, priority: "should" }, now, {});
    let previous = parent.id;
    for (let i = 1; i < 100; i++) {
      const task = await addTask(
        store,
        OWNER,
        {
          title: `epic ${epic} task ${i}`,
          parent: parent.id,
          priority: PRIORITIES[(epic + i) % 4],
          criteria: i % 5 === 0 ? ["documented"] : [],
          depends_on: i % 10 === 0 ? [previous] : [],
        },
        now,
        {},
      );
      previous = task.id;
    }
  }
  await store.close();
  return dir;
}

async function pageWeight(): Promise<void> {
  const assets = join(ROOT, "dist", "ui", "assets");
  const shipped = readdirSync(assets)
    .filter((name) => /\.(js|css)$/.test(name))
    .reduce((sum, name) => sum + gz(readFileSync(join(assets, name))), 0);
  // The floor: Preact, its hooks and htm alone, bundled the same way.
  const floor = await build({
    stdin: {
      contents:
        'import { h, render } from "preact"; import { useState } from "preact/hooks"; import htm from "htm"; globalThis.x = [h, render, useState, htm];',
      resolveDir: ROOT,
    },
    bundle: true,
    minify: true,
    format: "esm",
    write: false,
  });
  report({
    name: "page weight (JS + CSS, gzip -9)",
    figure: kb(shipped),
    baseline: `preact + hooks + htm alone ${kb(gz(floor.outputFiles[0]?.contents ?? new Uint8Array()))}`,
    goal: "≤ 60 KB",
    met: shipped <= 60 * 1024,
  });
}

async function browserLatency(dir: string, ui: Ui): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    report({
      name: "CLI write → page p50",
      figure: "skipped",
      baseline: `no Chromium at ${CHROMIUM}`,
      goal: "≤ 250 ms",
    });
    return;
  }
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    const page = await browser.newPage();
    const origin = `http://127.0.0.1:${ui.port}`;
    const opened = performance.now();
    await page.goto(`${origin}${ui.prefix}/?k=${ui.token}`);
    await page.locator("h2", { hasText: "Needs a human" }).waitFor();
    const firstPaint = performance.now() - opened;
    await page.locator(".badge[data-state=live]").waitFor();
    const latencies: number[] = [];
    for (let i = 0; i < WRITES; i++) {
      const title = `bench write ${i}`;
      await page.evaluate(
        (wanted) => {
          (window as unknown as { __seen: Promise<number> }).__seen = new Promise((resolve) => {
            const seen = () =>
              [...document.querySelectorAll("main a.id")].some((a) => a.textContent === wanted);
            const observer = new MutationObserver(() => {
              if (seen()) {
                observer.disconnect();
                resolve(Date.now());
              }
            });
            observer.observe(document.body, { subtree: true, childList: true, characterData: true });
          });
        },
        `T-${BOARD_SIZE + i + 1}`,
      );
      const run = spawnSync(process.execPath, [CAIRN, "task", "add", title], { cwd: dir, env: baseEnv() });
      if (run.status !== 0) throw new Error(`task add failed: ${run.stderr}`);
      const written = Date.now();
      const seen = await page.evaluate(() => (window as unknown as { __seen: Promise<number> }).__seen);
      latencies.push(Math.max(0, seen - written));
    }
    report({
      name: "Now in Chromium: navigation → inbox shown",
      figure: ms(firstPaint),
      baseline: "one cold page load, cookie exchange included",
    });
    report({
      name: "CLI write → page p50",
      figure: ms(percentile(latencies, 50)),
      baseline: `p95 ${ms(percentile(latencies, 95))}; watcher polls every 100 ms`,
      goal: "≤ 250 ms",
      met: percentile(latencies, 50) <= 250,
    });
  } finally {
    await browser.close();
  }
}

export async function benchUi(): Promise<void> {
  const seeded = performance.now();
  const dir = await seed();
  const seedSeconds = (performance.now() - seeded) / 1000;
  const ui = await startUi(dir);
  try {
    header(
      `ui: cairn ui on a board of ${BOARD_SIZE.toLocaleString("en")} tasks (seeded in ${seedSeconds.toFixed(0)} s)`,
    );
    const now = await timed(ui, ["/", "/api/now"]);
    const floor = await timed(ui, ["/api/pulse"]);
    report({
      name: "Now: index.html + /api/now p50 (server)",
      figure: ms(percentile(now, 50)),
      baseline: `/api/pulse p50 ${ms(percentile(floor, 50))} (round-trip floor)`,
      goal: "≤ 300 ms",
      met: percentile(now, 50) <= 300,
    });
    const board = await timed(ui, ["/api/board"]);
    report({
      name: "Board: /api/board p50 (50 cards a column)",
      figure: ms(percentile(board, 50)),
      baseline: `p95 ${ms(percentile(board, 95))}`,
    });
    const deep = await timed(ui, ["/api/task/list?offset=15000&limit=100&order=title"]);
    report({
      name: "Tasks: page at row 15,000, by title, p50",
      figure: ms(percentile(deep, 50)),
      baseline: `p95 ${ms(percentile(deep, 95))}`,
    });
    await pageWeight();
    await browserLatency(dir, ui);
    // Idle: no page open, nothing changing.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idle = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    report({
      name: "idle memory of cairn ui (RSS)",
      figure: `${(rssKb(ui.child.pid as number) / 1024).toFixed(1)} MB`,
      baseline: `an idle node process ${(rssKb(idle.pid as number) / 1024).toFixed(1)} MB`,
    });
    idle.kill();
  } finally {
    ui.child.removeAllListeners("exit");
    ui.child.kill("SIGTERM");
  }
}
