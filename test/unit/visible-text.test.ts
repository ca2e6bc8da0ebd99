import { describe, expect, it } from "vitest";
import { escapeInvisible, oneLine, showInvisible } from "../../src/kernel/visible-text.js";

describe("text shown to a reader", () => {
  it("shows by their codes what acts on a terminal or draws as nothing, and keeps what scripts need", () => {
    expect(showInvisible("a\x1b[2Jb\u202ec\u200bd")).toBe("a\\x1b[2Jb\\u202ec\\u200bd");
    // Letters drawn blank: one argument that looked like two in a person's confirmation form.
    expect(showInvisible("db\u3164\u3164(dry-run)")).toBe("db\\u3164\\u3164(dry-run)");
    expect(showInvisible("\u115f\u1160\uffa0\u2800")).toBe("\\u115f\\u1160\\uffa0\\u2800");
    // Tabs, line breaks, joiners, emoji and other scripts stay as they are.
    for (const kept of ["tab\there\nnext", "👩\u200d💻", "ሰላም", "한국어", "café"])
      expect(showInvisible(kept)).toBe(kept);
    expect(oneLine("a\nb\u3164")).toBe("a\\nb\\u3164");
    expect(JSON.parse(`"${escapeInvisible("x\u3164y")}"`)).toBe("x\u3164y");
  });
});
