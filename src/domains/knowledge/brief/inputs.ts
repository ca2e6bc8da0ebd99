/**
 * What the brief engine needs, as plain data. The engine itself is pure: give it these inputs and
 * a budget, it returns text. Gathering them from the store is gather.ts; what it needs from the
 * task board is the one seam below.
 */
import type { Tx } from "../../../store/store.js";
import type { Actor } from "../../identity/actor.js";

/** Text written by an agent or a person: always shown fenced, with who wrote it. */
export interface Authored {
  /** Display label of the author, e.g. `alice (A-2)`. */
  author: string;
}

/** Another task, named by its title: text its author wrote, shown fenced with who wrote it. */
export interface TaskRef extends Authored {
  id: string;
  title: string;
  status: string;
}

/** Everything the brief needs to know about one task. The task board fills it. */
export interface BriefTask extends Authored {
  id: string;
  title: string;
  status: string;
  soThat: string | null;
  context: string | null;
  /** `author`: whoever added the criterion after the task was written; else the task's author. */
  acceptance: { text: string; command: string | null; met: boolean | null; author?: string }[];
  dependencies: TaskRef[];
  /** Out-of-scope notes on the task itself (the role's come from the role). */
  outOfScope: string[];
  /** From the direct parent up to the root. */
  parents: (TaskRef & { soThat: string | null })[];
  /** The goal the task serves, when one is linked. */
  goal: {
    id: string;
    /** Display label of whoever drafted the goal contract. */
    author: string;
    /** Display labels of the others who changed it since (any writer may refine a contract). */
    changedBy?: string[];
    title: string;
    successCriteria: string[];
    /** Limits the work must respect, and what is explicitly out of the goal's scope. */
    constraints?: string[];
    nonGoals?: string[];
  } | null;
  /** Newest first. `text` is agent-written (a comment, a handoff), shown fenced. */
  recentActivity: {
    at: string;
    actor: string;
    action: string;
    text: string | null;
    /** An answer's question, quoted under its asker (`by`, a display label); `text` is the answer. */
    question?: { id: string; by: string; text: string };
  }[];
}

/**
 * The seam the task board fills (src/domains/tasks/brief-source.ts). Each read runs in the
 * brief's own transaction, so a brief is one snapshot of the workspace.
 */
export interface TaskBriefSource {
  /** The task as the brief shows it; undefined when there is no such task. */
  briefTask(tx: Tx, taskId: string): Promise<BriefTask | undefined>;
  /** The shortcuts this caller may run, most used first; without it, the role's list from cairn.toml. */
  shortcuts?(tx: Tx, actor: Actor): Promise<BriefShortcut[]>;
}

export interface BriefRole {
  name: string;
  summary: string;
  /** From cairn.toml, written by the workspace owner: standing instructions, shown as such. */
  instructions: string;
  outOfScope: string[];
}

export interface BriefDecision extends Authored {
  id: string;
  at: string;
  scope: string;
  chose: string;
  rejected: string;
  because: string;
  /**
   * The other notes that record the same decision (in other scopes), newest first, each with its
   * author: the note shown is one of them (the newest its preview cuts least, gather.ts), and an
   * agent restating the owner's decision in its own task's scope would otherwise have left the
   * owner's name out of the brief.
   */
  also?: { id: string; scope: string; author: string }[];
}

export interface BriefRisk extends Authored {
  id: string;
  rank: number;
  risk: string;
  impact: string;
  likelihood: string;
  indicators: string;
  action: string;
}

export interface BriefTerm extends Authored {
  term: string;
  meaning: string;
}

export interface BriefFinding extends Authored {
  id: string;
  at: string;
  scope: string;
  text: string;
  severity: string;
  trust: string;
  /** Display label of whoever confirmed or refuted it, when someone did. */
  trustBy?: string;
}

export interface BriefFact extends Authored {
  id: string;
  text: string;
}

export interface BriefShortcut {
  text: string;
  uses: number | null;
}

/** The engine's whole input, already ordered: decisions newest first, findings by severity/trust/recency. */
export interface BriefInputs {
  task: BriefTask;
  role: BriefRole | null;
  decisions: BriefDecision[];
  risks: BriefRisk[];
  glossary: BriefTerm[];
  findings: BriefFinding[];
  facts: BriefFact[];
  shortcuts: BriefShortcut[];
  /**
   * True where the store holds more than the brief takes (its newest decisions, its first
   * findings): the brief says so, whatever the budget, so a reader knows the list is not all.
   */
  more?: {
    decisions?: boolean;
    /** Some decisions newer than the last shown were left out (one voice had its share). */
    decisionsPassedOver?: boolean;
    findings?: boolean;
    facts?: boolean;
    risks?: boolean;
  };
}
