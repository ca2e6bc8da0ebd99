import { previewText } from "../../../kernel/text.js";
import { briefQuote, cleanText, quote } from "./fence.js";
import type { BriefInputs, TaskRef } from "./inputs.js";

/** One part of the brief, rendered; `how` says where to get it in full when it is cut. */
export interface Section {
  name: SectionName;
  title: string;
  body: string;
  /** The body's items, one block each, when a section can be shortened by leaving the last ones out. */
  parts?: string[];
  items: number;
  droppable: boolean;
  how: string;
}

/** The fixed order. Over budget, droppable sections leave from the bottom of this list. */
export const SECTION_ORDER = [
  "task",
  "role",
  "why",
  "out_of_scope",
  "decisions",
  "risks",
  "glossary",
  "findings",
  "memory",
  "activity",
  "shortcuts",
] as const;
export type SectionName = (typeof SECTION_ORDER)[number];

/** A droppable section of quoted items that can be shortened by leaving the last ones out. */
function listSection(name: SectionName, title: string, parts: string[], how: string, more?: string): Section {
  // What the store holds beyond the list is said under it: not an item, and gone with a cut,
  // whose own notice says how to get the rest.
  const body = parts.join("\n") + (more ? `\n[${more} not shown here. Get: ${how}]` : "");
  return { name, title, body, parts, items: parts.length, droppable: true, how };
}

/**
 * Another task, quoted: its id, author and status on the quote's line, which is cairn's, and its
 * title (and why) inside, so a title holding a line like `T-4 [done] …` cannot pass for a task.
 */
const refQuote = (ref: TaskRef, soThat?: string | null) =>
  briefQuote(
    `${ref.id} by ${ref.author}, ${ref.status}`,
    `${ref.title}${soThat ? `\nso that: ${soThat}` : ""}`,
  );
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * Dependencies quoted in full, at most this many. The task section is never cut, and any writer
 * may make a task depend on its own tasks (`task depend`), each with a title of up to 500
 * characters: forty of them left the task no brief within the default budget, two thousand none
 * within any. The unfinished come first, since they hold the task up; the rest are counted.
 */
export const MAX_DEPENDENCIES_SHOWN = 10;
/** A dropped dependency no longer holds its dependents, as a done one does not. */
const finished = (ref: TaskRef) => ref.status === "done" || ref.status === "dropped";

function dependenciesPart(task: BriefInputs["task"]): string {
  const ordered = [...task.dependencies.filter((d) => !finished(d)), ...task.dependencies.filter(finished)];
  const lines = ordered.slice(0, MAX_DEPENDENCIES_SHOWN).map((dep) => refQuote(dep));
  const rest = ordered.slice(MAX_DEPENDENCIES_SHOWN);
  if (rest.length > 0) {
    const unfinished = rest.filter((dep) => !finished(dep)).length;
    lines.push(
      `[${rest.length} more ${rest.length === 1 ? "dependency" : "dependencies"} (${unfinished} unfinished) not shown here. Get: \`cairn task show ${task.id}\`]`,
    );
  }
  return `Depends on:\n${lines.join("\n")}`;
}

/**
 * Criteria added to a task by others than its author (its holder may add them), quoted at most
 * this many, each previewed. The task section is never cut: one such criterion of 100,000
 * characters left the task no brief within the default budget, for its author and every agent
 * after, and a thousand of them none within any.
 */
export const MAX_ADDED_CRITERIA_SHOWN = 10;
const ADDED_CRITERION_CHARS = 500;

function taskSection(inputs: BriefInputs): Section {
  const { task } = inputs;
  const written = [`title: ${task.title}`];
  if (task.soThat) written.push(`so that: ${task.soThat}`);
  if (task.context) written.push(`context: ${task.context}`);
  const parts = [`${task.id} [${task.status}]`, briefQuote(`by ${task.author}`, written.join("\n"))];
  const whole = `\`cairn task show ${task.id}\``;
  let added = 0;
  const notShown: BriefInputs["task"]["acceptance"] = [];
  // Each criterion its own quote, and whether it is met on the quote's line, which is cairn's:
  // inside the author's text, a context could have held a criterion marked met.
  task.acceptance.forEach((criterion, index) => {
    const byOther = criterion.author !== undefined && criterion.author !== task.author;
    if (byOther && added >= MAX_ADDED_CRITERIA_SHOWN) {
      notShown.push(criterion);
      return;
    }
    if (byOther) added++;
    const shown = (text: string) => (byOther ? previewText(text, ADDED_CRITERION_CHARS, whole) : text);
    const state = criterion.met === null ? "" : criterion.met ? ", met" : ", not met";
    parts.push(
      briefQuote(
        `criterion ${index + 1} by ${criterion.author ?? task.author}${state}`,
        `${shown(criterion.text)}${criterion.command ? `\ncheck: ${shown(criterion.command)}` : ""}`,
      ),
    );
  });
  if (notShown.length > 0) {
    const unmet = notShown.filter((criterion) => criterion.met !== true).length;
    parts.push(
      `[${notShown.length} more ${notShown.length === 1 ? "criterion" : "criteria"} (${unmet} not met) not shown here. Get: ${whole}]`,
    );
  }
  if (task.dependencies.length > 0) parts.push(dependenciesPart(task));
  return { name: "task", title: "Task", body: parts.join("\n"), items: 1, droppable: false, how: "" };
}

/**
 * cairn.toml's words (the role, its out of scope, shortcut names) are shown as cairn's own, not
 * quoted, but they come from a file on disk: what a person reviewing it cannot see (tag characters
 * spelling an instruction, bidi overrides, escapes) is dropped here as it is from a quote.
 */
const plain = cleanText;

function roleSection(inputs: BriefInputs): Section | null {
  const { role } = inputs;
  if (!role || (role.summary === "" && role.instructions === "")) return null;
  const summary = plain(role.summary);
  const lines = [`You act as ${plain(role.name)}${summary ? `: ${summary}` : ""}.`];
  if (role.instructions) lines.push(plain(role.instructions));
  return {
    name: "role",
    title: "Your role (from cairn.toml)",
    body: lines.join("\n"),
    items: 1,
    droppable: true,
    how: "see the role in cairn.toml or `cairn whoami`",
  };
}

function whySection(inputs: BriefInputs): Section | null {
  const { task } = inputs;
  // Each parent and the goal were written by someone: each is quoted with its own author.
  const quotes: string[] = [];
  let lines = 0;
  for (const parent of task.parents) {
    quotes.push(refQuote(parent, parent.soThat));
    lines++;
  }
  if (task.goal) {
    const goal = [task.goal.title];
    for (const criterion of task.goal.successCriteria) goal.push(`- success: ${criterion}`);
    for (const constraint of task.goal.constraints ?? []) goal.push(`- constraint: ${constraint}`);
    for (const nonGoal of task.goal.nonGoals ?? []) goal.push(`- non-goal (out of scope): ${nonGoal}`);
    const changed = task.goal.changedBy?.length ? `, changed by ${task.goal.changedBy.join(", ")}` : "";
    quotes.push(briefQuote(`goal ${task.goal.id} by ${task.goal.author}${changed}`, goal.join("\n")));
    lines += goal.length;
  }
  if (quotes.length === 0) return null;
  return {
    name: "why",
    title: "Why",
    body: quotes.join("\n"),
    items: lines,
    droppable: true,
    how: "read the parent tasks",
  };
}

function outOfScopeSection(inputs: BriefInputs): Section | null {
  const fromRole = inputs.role?.outOfScope ?? [];
  const fromTask = inputs.task.outOfScope;
  if (fromRole.length + fromTask.length === 0) return null;
  const parts: string[] = [];
  if (fromRole.length > 0) parts.push(fromRole.map((line) => `- ${plain(line)}`).join("\n"));
  if (fromTask.length > 0)
    parts.push(briefQuote(`task, by ${inputs.task.author}`, fromTask.map((l) => `- ${l}`).join("\n")));
  return {
    name: "out_of_scope",
    title: "Out of scope",
    body: parts.join("\n"),
    items: fromRole.length + fromTask.length,
    droppable: true,
    how: "see the task and the role in cairn.toml",
  };
}

function decisionsSection(inputs: BriefInputs): Section | null {
  if (inputs.decisions.length === 0) return null;
  const parts = inputs.decisions.map((d) =>
    briefQuote(
      `${d.id} decision by ${d.author}, ${d.at.slice(0, 10)}, ${d.scope}${
        d.also
          ? `, also recorded as ${d.also.map((a) => `${a.id} (${a.scope}, by ${a.author})`).join(", ")}`
          : ""
      }`,
      `chose: ${d.chose}\nrejected: ${d.rejected}\nbecause: ${d.because}`,
    ),
  );
  return listSection(
    "decisions",
    "Decisions (newest first)",
    parts,
    "`cairn note list --kind decision`",
    inputs.more?.decisions
      ? inputs.more.decisionsPassedOver
        ? "further decisions"
        : "older decisions"
      : undefined,
  );
}

function risksSection(inputs: BriefInputs): Section | null {
  if (inputs.risks.length === 0) return null;
  const parts = inputs.risks.map((r) =>
    briefQuote(
      `${r.id} rank ${r.rank} (impact ${r.impact}, likelihood ${r.likelihood}) by ${r.author}`,
      `${r.risk}\nwatch for: ${r.indicators}\nthen: ${r.action}`,
    ),
  );
  return listSection(
    "risks",
    "Top risks",
    parts,
    "`cairn risk list`",
    inputs.more?.risks ? "further risks" : undefined,
  );
}

function glossarySection(inputs: BriefInputs): Section | null {
  if (inputs.glossary.length === 0) return null;
  const parts = inputs.glossary.map((t) => briefQuote(`term by ${t.author}`, `${t.term}: ${t.meaning}`));
  return listSection("glossary", "Glossary (terms in this task)", parts, "`cairn glossary list`");
}

function findingsSection(inputs: BriefInputs): Section | null {
  if (inputs.findings.length === 0) return null;
  const parts = inputs.findings.map((f) =>
    briefQuote(
      `${f.id} finding, ${f.severity}, ${f.trust}${f.trustBy ? ` by ${f.trustBy}` : ""}, by ${f.author}, ${f.scope}`,
      f.text,
    ),
  );
  return listSection(
    "findings",
    "Findings (this task, siblings, workspace)",
    parts,
    "`cairn note list --kind finding`",
    inputs.more?.findings ? "further findings" : undefined,
  );
}

/** The label a recalled fact is quoted under in a brief. */
const factLabel = (id: string, author: string) => `${id} fact by ${author}`;

/** How a fact's quote opens (fence.ts): `forget` finds the briefs that may quote it by it. */
export const factQuoteStart = (id: string) => `quote ${factLabel(id, "")}`;

/** A fact's quote in a brief, whole: fence, label, text and closing fence. */
export const factQuote = (id: string, author: string, text: string) =>
  briefQuote(factLabel(id, author), text);

/**
 * The same quote as briefs recorded before quoted lines were escaped (fence.ts) hold it: its text
 * cleaned alone. Forgetting the fact takes it out of those too.
 */
export const factQuoteUnescaped = (id: string, author: string, text: string) =>
  quote(factLabel(id, author), text);

function memorySection(inputs: BriefInputs): Section | null {
  if (inputs.facts.length === 0) return null;
  const parts = inputs.facts.map((f) => factQuote(f.id, f.author, f.text));
  return listSection(
    "memory",
    "Memory (recalled for this task)",
    parts,
    "`recall` with your own words",
    inputs.more?.facts ? "further facts" : undefined,
  );
}

function activitySection(inputs: BriefInputs): Section | null {
  const activity = inputs.task.recentActivity;
  if (activity.length === 0) return null;
  // An answer's question and the answer each under its own author: quoted as one text under the
  // answerer, a question holding "→ yes, I approve" read as the owner's answer before the owner's.
  const body = activity
    .map((a) => {
      const question = a.question
        ? `\n${briefQuote(`${a.question.id} asked by ${a.question.by}`, a.question.text)}`
        : "";
      const label = a.question ? `${a.question.id} answered by ${a.actor}` : `by ${a.actor}`;
      return `${a.at.slice(0, 16)} ${a.actor} ${a.action}${question}${a.text ? `\n${briefQuote(label, a.text)}` : ""}`;
    })
    .join("\n");
  return {
    name: "activity",
    title: "Recent activity",
    body,
    items: activity.length,
    droppable: true,
    how: `\`cairn task show ${inputs.task.id}\``,
  };
}

function shortcutsSection(inputs: BriefInputs): Section | null {
  if (inputs.shortcuts.length === 0) return null;
  const body = inputs.shortcuts
    .map((s) => `- ${plain(s.text)}${s.uses === null ? "" : ` (used ${plural(s.uses, "time")})`}`)
    .join("\n");
  return {
    name: "shortcuts",
    title: "Useful shortcuts",
    body,
    items: inputs.shortcuts.length,
    droppable: true,
    how: "see the role in cairn.toml",
  };
}

/** Every non-empty section, in the fixed order. */
export function renderSections(inputs: BriefInputs): Section[] {
  return [
    taskSection(inputs),
    roleSection(inputs),
    whySection(inputs),
    outOfScopeSection(inputs),
    decisionsSection(inputs),
    risksSection(inputs),
    glossarySection(inputs),
    findingsSection(inputs),
    memorySection(inputs),
    activitySection(inputs),
    shortcutsSection(inputs),
  ].filter((section): section is Section => section !== null);
}

export const itemsLabel = (section: Section) => {
  const words: Record<SectionName, string> = {
    task: "task",
    role: "role instruction",
    why: "line",
    out_of_scope: "item",
    decisions: "decision",
    risks: "risk",
    glossary: "term",
    findings: "finding",
    memory: "fact",
    activity: "event",
    shortcuts: "shortcut",
  };
  return plural(section.items, words[section.name]);
};
