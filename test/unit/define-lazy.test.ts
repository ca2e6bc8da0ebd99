import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineBareCommand, defineCommand } from "../../src/commands/define.js";

describe("a command's schemas given as builders", () => {
  it("are built on first read, once, and read like declared schemas", () => {
    let built = 0;
    const command = defineCommand({
      name: "probe",
      summary: "a probe",
      effect: "read",
      input: () => {
        built++;
        return z.object({ name: z.string() });
      },
      output: z.object({ ok: z.boolean() }),
      async handler(input) {
        return { ok: input.name.length > 0 };
      },
    });
    expect(built).toBe(0);
    const first = command.input;
    expect(command.input).toBe(first);
    expect(built).toBe(1);
    expect(Object.keys(command.input.shape)).toEqual(["name"]);
    expect(command.output.parse({ ok: true })).toEqual({ ok: true });
    expect(command.workspace).toBe("required");
  });

  it("stay builders for a bare command too", () => {
    let built = 0;
    const command = defineBareCommand({
      name: "probe",
      summary: "a probe",
      effect: "read",
      input: z.object({}),
      output: () => {
        built++;
        return z.object({ n: z.number() });
      },
      async handler() {
        return { n: 1 };
      },
    });
    expect(built).toBe(0);
    expect(command.output.safeParse({ n: "x" }).success).toBe(false);
    expect(built).toBe(1);
    expect(command.workspace).toBe("none");
  });
});
