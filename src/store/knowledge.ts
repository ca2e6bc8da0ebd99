/**
 * Repos of the knowledge domain: notes, memory facts, risks, glossary and recorded briefs.
 * Asynchronous and SQL-free like every repo; the SQLite implementation lives in ./sqlite.
 */

export type NoteKind = "decision" | "finding" | "metric" | "ref";
export type Severity = "major" | "moderate" | "minor";
export type Trust = "unverified" | "confirmed" | "refuted";
export type Level = "high" | "medium" | "low";

/** Kind-specific fields, stored as one JSON body. */
export type NoteBody =
  | { kind: "decision"; chose: string; rejected: string; because: string }
  | {
      kind: "finding";
      text: string;
      severity: Severity;
      trust: Trust;
      /** Who set the verdict, kept with it since migration 0020 (never in the written body). */
      trustBy?: string;
    }
  | { kind: "metric"; goal: string; question: string; metric: string }
  | { kind: "ref"; target: string; summary: string };

export interface NoteRecord {
  id: string;
  scope: string;
  author: string;
  createdAt: string;
  updatedAt: string;
  body: NoteBody;
  /** The note that replaced this one, and when: it stays readable and leaves briefs. */
  superseded?: { by: string; at: string };
}

export interface NoteFilter {
  kinds?: readonly NoteKind[];
  /** Exact scopes (`workspace`, `task:T-12`); all scopes when absent. */
  scopes?: readonly string[];
  limit: number;
}

export interface NotesRepo {
  insert(note: { scope: string; author: string; body: NoteBody }, at: string): Promise<NoteRecord>;
  byId(id: string): Promise<NoteRecord | undefined>;
  /** Newest first. */
  list(filter: NoteFilter): Promise<NoteRecord[]>;
  /**
   * Findings ordered by severity, then trust (confirmed, unverified, refuted), then newest: those
   * in `scopes`, and with `childrenOf` also those of every child task of that task (`task:<id>`
   * scopes), which a brief asks for its task's siblings without reading them first.
   */
  findings(scopes: readonly string[], limit: number, childrenOf?: string): Promise<NoteRecord[]>;
  setTrust(id: string, trust: Trust, at: string, by: string): Promise<void>;
  /** Mark a note replaced by another; false when it already was (or is not there). */
  supersede(id: string, by: string, at: string): Promise<boolean>;
  /** The distinct kinds of notes in one scope (the board's `[done] note_kinds` check). */
  kindsInScope(scope: string): Promise<NoteKind[]>;
  /** How many notes one scope holds, of every kind (a task shows a page of its own and the count). */
  countInScope(scope: string): Promise<number>;
}

export interface FactRecord {
  id: string;
  text: string;
  topics: string[];
  author: string;
  createdAt: string;
  lastSeenAt: string;
  seenCount: number;
  supersededBy: string | null;
  supersededAt: string | null;
}

export interface FactHit {
  fact: FactRecord;
  /** Full-text relevance in [0, 1] (bm25 and term coverage), higher is better; 0 without a query. */
  relevance: number;
  /** The caller's own score, when it asked to `keep` only the best. */
  score?: number;
}

/** What a caller's score may read of a candidate before its whole row is loaded. */
export interface FactCandidate {
  relevance: number;
  lastSeenAt: string;
  seenCount: number;
}

export interface FactSearch {
  /** Words to look for; the repo builds its own full-text expression from them. */
  terms: readonly string[];
  topic?: string;
  /** How many candidates to consider (to return, without `keep`). */
  limit: number;
  /**
   * Rank the candidates of a worded search by `score` (`best`: the highest relevance among
   * them; ties keep the candidates' order) and return only the first `count`, each with its
   * score: a store loads whole rows for those alone.
   */
  keep?: { count: number; score(candidate: FactCandidate, best: number): number };
}

export interface NewFact {
  text: string;
  norm: string;
  topics: string[];
  author: string;
}

export interface FactsRepo {
  insert(fact: NewFact, at: string): Promise<FactRecord>;
  /**
   * Many new facts at once (a bulk import): the same rows, ids and search index as `insert` on
   * each in order, in far fewer statements. Norms must be distinct and not live already.
   */
  insertMany(facts: readonly NewFact[], at: string): Promise<FactRecord[]>;
  byId(id: string): Promise<FactRecord | undefined>;
  /** The live (not superseded) fact with this normalised text. */
  liveByNorm(norm: string): Promise<FactRecord | undefined>;
  /** The live facts with any of these normalised texts, by normalised text. */
  liveByNorms(norms: readonly string[]): Promise<Map<string, FactRecord>>;
  /**
   * Of the superseded facts with any of these normalised texts, the one superseded last, by
   * normalised text: a restatement of a corrected fact is found by it.
   */
  supersededByNorms(norms: readonly string[]): Promise<Map<string, FactRecord>>;
  /**
   * A restatement: seen again now, with these topics. `counted` adds it to the fact's seen count
   * (its corroboration), which only a restatement from another author does.
   */
  reinforce(id: string, topics: string[], at: string, counted: boolean): Promise<FactRecord>;
  supersede(id: string, by: string, at: string): Promise<void>;
  delete(id: string): Promise<void>;
  /**
   * The facts `id` replaced, live again (back in recall), as a forget of `id` leaves them; one
   * whose text is live in another fact by now stays as it is. Their ids.
   */
  restoreReplacedBy(id: string): Promise<string[]>;
  /** The facts `id` replaced, now replaced by `by` instead (they stay out of recall). */
  handOverReplaced(id: string, by: string): Promise<void>;
  /** Live facts only. With terms: best full-text matches first; without: most recently seen first. */
  search(search: FactSearch): Promise<FactHit[]>;
  /** Topics of live facts with how many facts carry each, most used first. */
  topics(): Promise<{ topic: string; count: number }[]>;
  /**
   * The `limit` most used topics of live facts (most used first, as `topics` orders them), and
   * how many topics there are in all.
   */
  topTopics(limit: number): Promise<{ topics: { topic: string; count: number }[]; total: number }>;
  /**
   * Maintenance: when the full-text index over facts has grown into more than `maxSegments`
   * pieces, merge it back into one, so a search reads each word's facts in one place. Returns how
   * many pieces were merged (0: compact enough, nothing was written).
   */
  compactIndex(maxSegments: number): Promise<number>;
}

export interface RiskRecord {
  id: string;
  scope: string;
  risk: string;
  impact: Level;
  likelihood: Level;
  indicators: string;
  action: string;
  author: string;
  createdAt: string;
  /** When, by whom and why it was closed; null while it is open. */
  closed: RiskClosing | null;
}

export interface RiskClosing {
  at: string;
  by: string;
  because: string;
}

/** Which risks a page holds: the open ones (what briefs show), the closed ones, or all. */
export type RiskState = "open" | "closed" | "all";

export interface RisksRepo {
  insert(risk: Omit<RiskRecord, "id" | "createdAt" | "closed">, at: string): Promise<RiskRecord>;
  byId(id: string): Promise<RiskRecord | undefined>;
  /** Every risk, open and closed (of these scopes alone, when given), oldest first. */
  list(scopes?: readonly string[]): Promise<RiskRecord[]>;
  /**
   * One page of the risks in `state` (open when not given; of these scopes alone, when given),
   * worst rank first and oldest first among equals (the order `byRank` gives `list`), and how
   * many there are: only the page's rows are read whole. A brief's top risks are the first page
   * of its scopes' open risks.
   */
  page(query: {
    scopes?: readonly string[];
    state?: RiskState;
    limit: number;
    offset: number;
  }): Promise<{ risks: RiskRecord[]; total: number }>;
  /** Close an open risk; false when it was already closed (or is not there). */
  close(id: string, closing: RiskClosing): Promise<boolean>;
}

export interface GlossaryEntry {
  term: string;
  meaning: string;
  author: string;
  updatedAt: string;
}

export interface GlossaryRepo {
  /**
   * Insert or replace the meaning of a term (terms compare case-insensitively). `replacing`: the
   * stored term to replace when it is spelled otherwise than the store folds (see `termsMayOccurIn`).
   */
  upsert(entry: GlossaryEntry, replacing?: string): Promise<{ created: boolean }>;
  /** The entry `upsert` would replace for this term (terms compare case-insensitively). */
  byTerm(term: string): Promise<GlossaryEntry | undefined>;
  list(): Promise<GlossaryEntry[]>;
  /** One page of the entries, in `list` order, and how many there are. */
  page(query: { limit: number; offset: number }): Promise<{ entries: GlossaryEntry[]; total: number }>;
  /**
   * The terms that may occur in `lowerText` (text already lower-cased), in `list` order: each term
   * that, lower-cased, is part of the text, and every term holding anything but ASCII (the stores
   * fold ASCII case alone). The caller decides whole words, then reads the entries it keeps
   * (`byTerms`); no term it would accept is left out. Terms alone: any writer gives a meaning up
   * to 256 KiB, and every non-ASCII term is offered to every brief, so reading their meanings
   * here read a long glossary whole for each brief (300 such terms: a brief of 350 ms).
   */
  termsMayOccurIn(lowerText: string): Promise<string[]>;
  /** The entries of these terms, spelled as stored (as termsMayOccurIn gives them), in `list` order. */
  byTerms(terms: readonly string[]): Promise<GlossaryEntry[]>;
  /** Remove the term spelled exactly as stored; false when it is not there (any more). */
  remove(term: string): Promise<boolean>;
}

export interface BriefRecord {
  id: string;
  task: string;
  actor: string;
  budget: number;
  hash: string;
  text: string;
  createdAt: string;
}

export interface BriefsRepo {
  insert(brief: Omit<BriefRecord, "id" | "createdAt">, at: string): Promise<BriefRecord>;
  byId(id: string): Promise<BriefRecord | undefined>;
  /** The newest brief `actor` recorded for `task`, without its text. */
  latest(task: string, actor: string): Promise<Omit<BriefRecord, "text"> | undefined>;
  /**
   * In every recorded brief holding `marker`, each `needle` replaced by `replacement`, the old
   * bytes overwritten where the store can (a forgotten fact's text); the ids of those changed.
   * The text is read as if it ended in a line break, so a needle of whole lines (`\n…\n`) is
   * found at the text's end too; none is added to what is stored.
   */
  redact(marker: string, needle: string, replacement: string): Promise<string[]>;
}
