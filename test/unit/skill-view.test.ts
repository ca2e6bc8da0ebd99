import { describe, expect, it } from "vitest";
import { withSkillVariables } from "../../src/domains/skills/view.js";

describe("a skill's variables", () => {
  it("are filled with the folders as written, whatever `$` patterns their names hold", () => {
    const body = "before ${CLAUDE_SKILL_DIR} middle ${CLAUDE_PROJECT_DIR} after";
    for (const name of ["a$`b", "a$'b", "a$&b", "a$$b", "a$1b"]) {
      const filled = withSkillVariables(body, { realDir: `/p/.claude/skills/${name}` }, `/p/${name}`);
      expect(filled).toBe(`before /p/.claude/skills/${name} middle /p/${name} after`);
    }
  });
});
