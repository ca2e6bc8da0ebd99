import { describe, expect, it } from "vitest";
import { actorOf, OWNER } from "../../src/domains/identity/actor.js";
import { addAgent } from "../../src/domains/identity/agents.js";
import { addTask } from "../../src/domains/tasks/board.js";
import { claimTask, renewClaims } from "../../src/domains/tasks/claims.js";
import { sweep } from "../../src/domains/tasks/sweep.js";
import { WorkspaceConfig } from "../../src/domains/workspace/config.js";
import { contractStores, storeForSuite } from "../helpers/contract-stores.js";

const minutesFrom = (at: string, minutes: number) =>
  new Date(Date.parse(at) + minutes * 60_000).toISOString();

/**
 * Machines sharing a store disagree on the time. On PostgreSQL leases are stamped and judged by
 * the server's clock, so a sweeper 40 minutes fast, or a holder 40 minutes slow, releases no live
 * claim; a file store has one machine, whose clock is the clock.
 */
describe.each(contractStores("lease-clock"))("the lease clock: $name", ({ name, create }) => {
  const store = storeForSuite(create);
  const config = WorkspaceConfig.parse({ claims: { lease_minutes: 30 } });
  const shared = name === "postgres";

  const claimed = async (agentName: string, clock: string) => {
    const { agent } = await addAgent(store, config, OWNER, { name: agentName, role: "builder" }, clock);
    const holder = actorOf(agent);
    const task = await addTask(store, holder, { title: `held by ${agentName}` }, clock, {});
    await claimTask(store, config, holder, task.id, clock);
    return { holder, task };
  };
  const released = async (clock: string) =>
    (await sweep(store, config, OWNER, clock)).map((swept) => swept.task);

  it("a sweeper whose clock runs 40 minutes fast releases a claim made just now only on a store one machine holds", async () => {
    const { task } = await claimed("fastswept", new Date().toISOString());
    const swept = await released(minutesFrom(new Date().toISOString(), 40));
    expect(swept.includes(task.id)).toBe(!shared);
  });

  it("a holder whose clock runs 40 minutes slow keeps its claim, renewing it, on the shared store", async () => {
    const slow = minutesFrom(new Date().toISOString(), -40);
    const { holder, task } = await claimed("slowholder", slow);
    await renewClaims(store, config, holder, minutesFrom(slow, 2));
    const swept = await released(new Date().toISOString());
    expect(swept.includes(task.id)).toBe(!shared);
  });
});
