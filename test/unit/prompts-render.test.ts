import { describe, expect, it } from "vitest";
import type { SlashCommand } from "../../src/domains/prompts/discover.js";
import { pageOf, renderCommand, splitWords } from "../../src/domains/prompts/render.js";
import { withoutTrailingNewlines } from "../../src/kernel/text.js";
import { elapsed, randomTexts } from "../helpers/random-texts.js";

const command = (
  body: string,
  dialect: SlashCommand["dialect"] = "claude",
  argumentNames: string[] = [],
): SlashCommand => ({
  name: "t",
  path: "/x/t.md",
  origin: ".claude/commands",
  dialect,
  description: "t",
  argumentNames,
  modelInvocable: true,
  body,
  warnings: [],
});

const claude = (body: string, args: string, names: string[] = []) =>
  renderCommand(command(body, "claude", names), args);

describe("Claude Code dialect", () => {
  it("$ARGUMENTS is the raw string, $N counts from 0, missing positionals stay literal", () => {
    const out = claude("Fix $ARGUMENTS: first=$0 second=$1 third=$2 ten=$10", '"hello world" x');
    expect(out.text).toBe('Fix "hello world" x: first=hello world second=x third=$2 ten=$10');
    expect(out.unresolved).toEqual(["$2", "$10"]);
    expect(out.appended).toBe(false);
  });
  it("$ARGUMENTS[N], named arguments (missing → empty), escapes, and no re-expansion", () => {
    expect(claude("$ARGUMENTS[1]/$ARGUMENTS[5]", "a b").text).toBe("b/$ARGUMENTS[5]");
    expect(claude("issue=$issue branch=$branch $issueX", "12", ["issue", "branch"]).text).toBe(
      "issue=12 branch= $issueX",
    );
    expect(claude("costs \\$1.00 and \\$ARGUMENTS, $0", "x").text).toBe("costs $1.00 and $ARGUMENTS, x");
    expect(claude("A: $0 B: $1", "$1 $ARGUMENTS").text).toBe("A: $1 B: $ARGUMENTS");
  });
  it("appends the arguments only when the body has no placeholder and arguments were given", () => {
    expect(claude("Review the code.\n", "src/a.ts").text).toBe("Review the code.\n\nARGUMENTS: src/a.ts");
    expect(claude("Review the code.\n", "").text).toBe("Review the code.\n");
  });
  it("appends the arguments when no placeholder took one, so none is lost (as Claude Code: the text came out unchanged)", () => {
    // Written for `$1` counting from 1, given one argument: `$1` stays, the argument is appended.
    const out = claude("Fix issue $1 now.\n", "123");
    expect(out.text).toBe("Fix issue $1 now.\n\nARGUMENTS: 123");
    expect(out.appended).toBe(true);
    expect(out.unresolved).toEqual(["$1"]);
    expect(claude("Refund $5 and \\$0.\n", "order 9").text).toBe("Refund $5 and $0.\n\nARGUMENTS: order 9");
    // One placeholder filled: nothing appended, the missing one still left as written.
    expect(claude("PR $0, $1", "456").text).toBe("PR 456, $1");
  });
});

describe("the project folder variable (CLAUDE_PROJECT_DIR)", () => {
  const variable = "$" + "{CLAUDE_PROJECT_DIR}";
  it("is the project's folder in Claude Code's dialect, in the one pass: an argument holding it stays as typed", () => {
    const out = renderCommand(command(`cat ${variable}/a.md $0`, "claude"), variable, "/p/$&x");
    expect(out.text).toBe(`cat /p/$&x/a.md ${variable}`);
  });
  it("is no argument: with no placeholder filled the arguments are still appended", () => {
    const out = renderCommand(command(`Read ${variable}/README.md`, "claude"), "fast", "/p");
    expect(out.text).toBe("Read /p/README.md\n\nARGUMENTS: fast");
  });
  it("stays as written outside a project, and in the Codex and Cursor dialects", () => {
    expect(renderCommand(command(`in ${variable}`, "claude"), "").text).toBe(`in ${variable}`);
    for (const dialect of ["codex", "cursor"] as const) {
      expect(renderCommand(command(`in ${variable}`, dialect), "", "/p").text).toBe(`in ${variable}`);
    }
  });
});

describe("Codex prompts dialect", () => {
  it("$1..$9 count from 1, missing → empty, $ARGUMENTS joins words, $$ stays", () => {
    const out = renderCommand(command("one=$1 two=$2 all=$ARGUMENTS cost=$$ ten=$10", "codex"), '"a b" c');
    expect(out.text).toBe("one=a b two=c all=a b c cost=$$ ten=a b0");
    expect(renderCommand(command("x=$3", "codex"), "a").text).toBe("x=");
    expect(renderCommand(command("no placeholder", "codex"), "a").appended).toBe(false);
  });
  it("named $UPPER placeholders need KEY=value arguments, every one supplied", () => {
    expect(renderCommand(command("Ship $FILE to $ENV", "codex"), "FILE=a.ts ENV=prod").text).toBe(
      "Ship a.ts to prod",
    );
    expect(() => renderCommand(command("Ship $FILE to $ENV", "codex"), "FILE=a.ts")).toThrow(
      /missing required args: ENV/,
    );
    expect(() => renderCommand(command("Ship $FILE", "codex"), "stray")).toThrow(/KEY=value/);
  });
  it("a name escaped by `$` ($$HOME) is text, as Codex reads it: not asked for, not filled", () => {
    // Positional mode still: the escaped name does not make the prompt demand HOME=…
    expect(renderCommand(command("cd $$HOME then $1", "codex"), "src").text).toBe("cd $$HOME then src");
    expect(renderCommand(command("$$FILE and $FILE, $$$FILE", "codex"), "FILE=a.ts").text).toBe(
      "$$FILE and a.ts, $$$FILE",
    );
  });
  it("once a prompt takes names, $ARGUMENTS is one of them: left as written unless ARGUMENTS=… is given", () => {
    expect(renderCommand(command("Ship $FILE ($ARGUMENTS)", "codex"), "FILE=a.ts").text).toBe(
      "Ship a.ts ($ARGUMENTS)",
    );
    expect(renderCommand(command("Ship $FILE ($ARGUMENTS)", "codex"), "FILE=a.ts ARGUMENTS=x").text).toBe(
      "Ship a.ts (x)",
    );
  });
});

describe("Cursor dialect and inert content", () => {
  it("substitutes nothing and appends the arguments as context", () => {
    const out = renderCommand(command("Use $ARGUMENTS and $1", "cursor"), "x y");
    expect(out.text).toBe("Use $ARGUMENTS and $1\n\nARGUMENTS: x y");
  });
  it("reports `!` lines and @file references as inert, never running them", () => {
    const out = claude("Status:\n!`git status`\nSee @docs/guide.md\n", "");
    expect(out.inert).toHaveLength(2);
    expect(out.text).toContain("!`git status`");
  });
  it("says so of `!` lines and @file references the arguments bring, in every dialect", () => {
    for (const dialect of ["claude", "codex", "cursor"] as const) {
      const out = renderCommand(command("Review $ARGUMENTS", dialect), "x\n!`id`\nand @secrets/key.pem");
      expect(out.inert, dialect).toHaveLength(2);
    }
    expect(renderCommand(command("Review $ARGUMENTS", "claude"), "plain words").inert).toEqual([]);
  });
  it("splits words like a shell, quotes grouping", () => {
    expect(splitWords(`a "b c" 'd e' f\\ g ""`)).toEqual(["a", "b c", "d e", "f g", ""]);
  });
});

describe("a command's rendered size", () => {
  const placeholders = (n: number, token: string) => Array.from({ length: n }, () => token).join(" ");
  const args = "x".repeat(64 * 1024);
  it.each([
    ["claude", "$ARGUMENTS"],
    ["claude", "$0"],
    ["codex", "$ARGUMENTS"],
    ["codex", "$1"],
  ] as const)(
    "stops %s's %s at the limit with a usage error, whatever the file repeats",
    (dialect, token) => {
      const body = placeholders(3_000, token);
      expect(() => renderCommand(command(body, dialect), args)).toThrow(/more than 1048576 characters/);
    },
  );
  it("stops codex's named arguments too", () => {
    expect(() => renderCommand(command(placeholders(3_000, "$FILE"), "codex"), `FILE=${args}`)).toThrow(
      /more than 1048576 characters/,
    );
  });
  it("renders up to the limit", () => {
    const out = renderCommand(command(placeholders(15, "$ARGUMENTS")), args);
    expect(out.text.length).toBe(15 * args.length + 14);
  });
});

describe("a command's pages", () => {
  it("cut at the page size, never inside a surrogate pair, and join back to the whole", () => {
    const text = `ab${"😀".repeat(5)}`;
    const first = pageOf(text, 0, 5);
    expect(first).toEqual({ text: "ab😀", next_offset: 4 });
    const rest = [];
    for (let at: number | null = first.next_offset; at !== null; ) {
      const page = pageOf(text, at, 5);
      rest.push(page.text);
      at = page.next_offset;
    }
    expect(first.text + rest.join("")).toBe(text);
    expect(pageOf(text, text.length, 5)).toEqual({ text: "", next_offset: null });
    expect(() => pageOf(text, text.length + 1, 5)).toThrow(/past the end/);
  });
});

describe("the claim-next prompt", () => {
  it("shows the hidden characters of a title by their codes, as the resource list does", async () => {
    const { PROMPTS } = await import("../../src/commands/resources.js");
    const claimNext = PROMPTS.find((prompt) => prompt.name === "claim-next");
    const tag = String.fromCodePoint(0xe0049);
    const title = `Fix it\u202e now${tag}\u0085`;
    const text = await claimNext?.text({}, async () => ({
      tasks: [{ id: "T-5", title, author: "bob (A-2)" }],
    }));
    // Each title is quoted as data and named as its author's words.
    expect(text).toContain('- T-5, by bob (A-2): "Fix it\\u202e now\\u{e0049}\\x85"');
    expect(text).not.toMatch(/[\u202e\u0085]|\u{e0049}/u);
  });
});

describe("the brief prompt", () => {
  it("does not introduce a refusal as the task's brief", async () => {
    const { PROMPTS } = await import("../../src/commands/resources.js");
    const brief = PROMPTS.find((prompt) => prompt.name === "brief");
    const refused = {
      refused: { policy: "budget", reason: "the task needs 9000 tokens", next: "ask again" },
    };
    const text = (await brief?.text({ task: "T-2" }, async () => refused)) ?? "";
    expect(text).not.toMatch(/Here is its brief|You are starting work/);
    expect(text).toMatch(/^cairn refused this for you/);
    expect(text).toContain('"policy": "budget"');
  });
});

describe("appending arguments to a long body takes one pass", () => {
  it("drops the trailing newlines the former pattern dropped, on 20,000 random texts", () => {
    for (const text of randomTexts(20_000, ["\n", "\n", "a", "\r", " "], 40)) {
      expect(withoutTrailingNewlines(text), JSON.stringify(text)).toBe(text.replace(/\n*$/, ""));
    }
  });

  it("renders a 256 KiB body of newlines before its last letter at once", () => {
    // `replace(/\n*$/, "")` ran over the newlines from each of them: 4 s at 64 KiB, 76 s at the
    // 256 KiB a command file may hold, with the MCP server answering no one meanwhile.
    const body = `a${"\n".repeat(262_000)}b`;
    for (const dialect of ["claude", "cursor"] as const) {
      let text = "";
      expect(elapsed(() => (text = renderCommand(command(body, dialect), "x").text))).toBeLessThan(2_000);
      expect(text).toBe(`${body}\n\nARGUMENTS: x`);
    }
  });
});
