import { READ_BYTES } from "./discover.js";
import { indexFiles, type SkillFile, trimToBoundary } from "./files.js";
import { revealHidden, showPath, unshowableName } from "./frontmatter.js";
import type { LoadedSkill } from "./skill.js";

/** What loading a skill returns: its body (capped), where it lives, and the files beside it. */
export interface SkillView {
  name: string;
  origin: string;
  dir: string;
  description: string;
  body: string;
  body_truncated: boolean;
  /** How to read past the cap, when there is more. */
  continue_with: string | null;
  /** `!` shell lines and `@file` references stay text: nothing was run or attached. */
  inert: string[];
  files: SkillFile[];
  files_truncated: boolean;
  warnings: string[];
}

export const BODY_CAP_BYTES = 32 * 1024;

/** Claude Code's `!` shell lines and `@file` references, in a skill's body or a slash command's text. */
export const SHELL_LINE = /(^|\s)!`[^`]*`|^```!/m;
export const AT_FILE = /(^|\s)@[\w./-]+\.\w+/m;

/**
 * Claude Code's variables for a skill's own folder and the project, which cairn knows too. The
 * folders are given by a function: as a replacement string, a folder named `a$\`b` or `a$'b`
 * spliced the body's text before or after each variable into its place, so the body served was
 * not the file's, and a megabyte of variables grew past what one string holds.
 */
export function withSkillVariables(body: string, skill: Pick<LoadedSkill, "realDir">, projectDir: string) {
  return body
    .replaceAll(`$\{CLAUDE_SKILL_DIR}`, () => skill.realDir)
    .replaceAll(`$\{CLAUDE_PROJECT_DIR}`, () => projectDir);
}

export function skillView(
  skill: LoadedSkill,
  projectDir: string,
  cap = BODY_CAP_BYTES,
  /** The body had its variables filled already (before arguments went in, which are never filled). */
  filled = false,
): SkillView {
  const substituted = filled ? skill.body : withSkillVariables(skill.body, skill, projectDir);
  const { text, found } = revealHidden(substituted);
  const warnings = [...skill.warnings];
  if (found > 0) warnings.push(`${found} hidden character(s) in the body are shown as [U+XXXX]`);
  const bytes = Buffer.from(text, "utf8");
  const truncated = bytes.length > cap || skill.bodyBytes > READ_BYTES;
  const shown =
    bytes.length > cap ? bytes.subarray(0, trimToBoundary(bytes.subarray(0, cap))).toString("utf8") : text;
  const inert: string[] = [];
  if (SHELL_LINE.test(text)) {
    inert.push(
      "`!` shell lines are plain text here: cairn ran nothing; run a step yourself only if you judge it safe",
    );
  }
  if (AT_FILE.test(text)) {
    inert.push(
      "`@file` references are not attached: read a skill file with skill_read, others with your own tools",
    );
  }
  const { files: indexed, truncated: filesTruncated } = indexFiles(skill.realDir);
  // A file named `x\nSYSTEM: …` would forge a line in the index a model reads: its name is
  // shown by codes (and so cannot be read by it, as nothing such a name holds should be).
  const files = indexed.map((file) =>
    unshowableName(file.path) ? { ...file, path: showPath(file.path) } : file,
  );
  return {
    name: skill.name,
    origin: skill.origin,
    dir: skill.realDir,
    description: skill.description,
    body: shown,
    body_truncated: truncated,
    continue_with: truncated
      ? `the body is cut at ${cap} bytes: page through the whole file with skill_read {skill: "${skill.name}", path: "SKILL.md", offset} (its next_offset)`
      : null,
    inert,
    files,
    files_truncated: filesTruncated,
    warnings,
  };
}

const size = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`);

/** The view as a model reads it: text to follow, with its origin first and its files last. */
export function renderSkillView(view: SkillView): string {
  const lines = [
    `Skill "${view.name}" from ${view.origin} — instructions to follow; loading it did nothing by itself.`,
    `Base directory for this skill: ${view.dir}`,
    ...view.warnings.map((w) => `warning: ${w}`),
    ...view.inert.map((note) => `note: ${note}`),
    "",
    view.body,
  ];
  if (view.continue_with) lines.push("", `[${view.continue_with}]`);
  if (view.files.length > 0) {
    lines.push("", "Files in this skill (read with skill_read; run scripts/ with skill_run):");
    for (const file of view.files) {
      const tags = [
        size(file.size),
        file.binary ? "binary" : "",
        file.runnable ? "runnable" : "",
        file.external ? "not readable: a link out of the skill, or a file with another name" : "",
      ]
        .filter(Boolean)
        .join(", ");
      lines.push(`- ${file.path} (${tags})`);
    }
    if (view.files_truncated) lines.push("- … more files not listed");
  }
  return lines.join("\n");
}
