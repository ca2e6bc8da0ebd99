import type { DemoWorld } from "./world.js";

/** Chapter 1: a workspace, two agents with their own servers, identity bound at launch. */
export async function chapterSpine(world: DemoWorld): Promise<void> {
  world.say("\n== 1. Workspace and identity");
  world.cli(["init"]);
  const alice = await world.agent("alice", "builder", "rw");
  const bob = await world.agent("bob", "reviewer", "ro");
  await alice.call("whoami");
  await bob.call("whoami");
  await alice.call("status");
  world.say("  bob has a read-only grant; adding an agent is a write, so it is refused (a normal result):");
  await bob.call("cli", { argv: ["agent", "add", "carol", "--role", "builder", "--parent", bob.id] });
  world.say(
    "  the same through a tool schema check: a call without schema_version is rejected before it runs:",
  );
  const bad = await bob.client.callTool({ name: "whoami", arguments: {} });
  world.say(`  [bob] whoami({}) → isError=${bad.isError}: ${(bad.content as { text: string }[])[0]?.text}`);
}
