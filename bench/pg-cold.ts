/**
 * Cold start of `cairn mcp` against each store beside the minimal SDK server, pairwise: spawn,
 * initialize, tools/list, one call, exit.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ms, percentile, report } from "./report.js";
import { baseEnv, CAIRN, cairnServer, coldStart, minimalServer } from "./servers.js";

export async function benchColdStart(pgEnv: Record<string, string>): Promise<void> {
  const workspace = (env: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-bench-cold-"));
    const init = spawnSync(process.execPath, [CAIRN, "init"], {
      cwd: dir,
      env: baseEnv(env),
      encoding: "utf8",
    });
    if (init.status !== 0) throw new Error(`cairn init failed: ${init.stderr}`);
    return dir;
  };
  const servers = {
    sqlite: cairnServer(workspace({})),
    postgres: cairnServer(workspace(pgEnv), [], pgEnv),
    minimal: minimalServer(),
  };
  const samples: Record<keyof typeof servers, number[]> = { sqlite: [], postgres: [], minimal: [] };
  for (let round = 0; round < 7; round++)
    for (const key of Object.keys(servers) as (keyof typeof servers)[])
      samples[key].push(await coldStart(servers[key]));
  const p = (s: number[]) => `p50 ${ms(percentile(s, 50))}`;
  report({
    name: "cairn mcp cold start, postgres",
    figure: p(samples.postgres),
    baseline: `sqlite ${p(samples.sqlite)}; minimal SDK ${p(samples.minimal)}`,
  });
}
