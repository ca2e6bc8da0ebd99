import type { TextHead } from "./tasks.js";

/** Questions on tasks (`ask`, `answer`, `asks`): their records and the store's repo of them. */

export interface AskRecord {
  id: string;
  taskId: string;
  question: string;
  askedBy: string;
  toRole: string;
  askedAt: string;
  answer: string | null;
  answeredBy: string | null;
  answeredAt: string | null;
}

/** How much of a question and of its answer a listed one carries: no less than any preview shows. */
export const ASK_HEAD_CHARS = 500;

/**
 * A question as lists read it (`asks`, `status`, `now`, a task's detail): its question and answer
 * each as a head of ASK_HEAD_CHARS and a length. Anyone may ask, a read-only agent too, each
 * question up to 256 KiB: a hundred of them, read whole to show 500 characters each, brought
 * 25 MB into every agent's `status` (see headColumns for what the store still reads).
 */
export interface AskHeadRecord extends Omit<AskRecord, "question" | "answer"> {
  question: TextHead;
  answer: TextHead | null;
}

/**
 * Which open questions: all, one role's, one task's or one asker's; `onTasks` keeps those whose
 * task is still live (open, active or blocked) or those whose task ended (done or dropped), a
 * question nobody waits on any more.
 */
export interface OpenAskFilter {
  toRole?: string;
  taskId?: string;
  askedBy?: string;
  onTasks?: "live" | "ended";
}

export interface AskRepo {
  insert(ask: Pick<AskRecord, "taskId" | "question" | "askedBy" | "toRole">, at: string): Promise<AskRecord>;
  byId(id: string): Promise<AskRecord | undefined>;
  /** One question as lists read it: its heads (AskHeadRecord). */
  headById(id: string): Promise<AskHeadRecord | undefined>;
  answer(id: string, answer: string, by: string, at: string): Promise<void>;
  /** Open questions, oldest first, whole; `limit` bounds how many are read. */
  open(filter: OpenAskFilter & { limit?: number }): Promise<AskRecord[]>;
  /** The same questions as `open`, in the same order, each read as its heads (AskHeadRecord). */
  openHeads(filter: OpenAskFilter & { limit: number }): Promise<AskHeadRecord[]>;
  /** How many questions are open: all of them, or those the filter keeps. */
  countOpen(filter?: OpenAskFilter): Promise<number>;
  /** The newest `limit` questions (all, or those routed to one role), open or answered, each read as its heads. */
  recentHeads(limit: number, toRole?: string): Promise<AskHeadRecord[]>;
}
