import type { z } from "zod";
import type { Effect } from "../domains/identity/guard.js";
import type { BareContext, CommandContext } from "./context.js";

export type { Effect };

interface CommandBase<I extends z.ZodObject, O extends z.ZodType> {
  /** `group verb` (or a single word): the CLI path and the key tools refer to. */
  name: string;
  summary: string;
  effect: Effect;
  /**
   * The most a call may do, where more than `effect` (which the guard checks on entry) and the
   * handler's own guard decides per call: `shortcut run` runs shortcuts declared destructive. The
   * MCP annotations tell this one.
   */
  effectAtMost?: Effect;
  input: I;
  output: O;
  /** Input fields taken as positional CLI arguments, in order. */
  positional?: readonly (keyof z.infer<I> & string)[];
  /**
   * The last positional (a string) takes the rest of the line: what a person types after a slash
   * command's name (`cairn command get fix 123 high`), each word as the shell gave it, joined back
   * and quoted where it needs to be, so the command splits the words it was given.
   */
  restOfLine?: true;
  /**
   * What the terminal's help says of a flag its schema leaves undescribed: a description in the
   * schema goes to every model whose catalog holds the tool, where the tool's text explains it.
   */
  flagHelp?: Partial<Record<keyof z.infer<I> & string, string>>;
  /** `self`: the handler appends its own, richer audit entry (skill scripts, OS runs). */
  audit?: "self";
  /** The least severity its audit entry carries (a remediation is `critical`). */
  auditSeverity?: "info" | "notice" | "critical";
  /**
   * What the audit log keeps of the input, where some of it must stay secret from the agents
   * that may read the log (a hidden evaluator's command); the default keeps it all.
   */
  auditInput?(input: z.infer<I>): Record<string, unknown>;
  /**
   * What the person at the client is shown of a destructive call before they agree, beside its
   * summary (the fact it deletes), or of a judgment they are asked to own (the attempt and why it
   * is in review); the call's input, quoted, when absent. It may refuse as the
   * handler would, so that no one is asked about a call that cannot happen.
   */
  personSees?(input: z.infer<I>, ctx: CommandContext): Promise<string>;
  /** Human-readable rendering for the terminal; the default prints key: value lines. */
  render?(output: z.infer<O>): string;
  /**
   * The CLI exit code of a result that is ok but reports a failure (a criterion that failed its
   * check), so scripts can tell; the default is 0.
   */
  exitCode?(output: z.infer<O>): number;
}

/**
 * A command, declared once: name, input and output schemas, effect and handler. The CLI and
 * MCP faces are generated from this table; no rule lives in a face.
 */
export interface WorkspaceCommand<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType>
  extends CommandBase<I, O> {
  workspace: "required";
  /** Writes a read-only agent may still make (ask, findings, proposals). */
  allowReadOnly?: boolean;
  /**
   * Runs processes it supervises (a shortcut, verify commands, evaluators, an OS tool): a stop of
   * this process cancels the call, and waits for it to record its end (see `dispatch`).
   */
  supervises?: true;
  /**
   * Records the owner's judgment (settling a review, scoring a manual proof, approving an
   * evaluator), which a model must not give itself: from a model in the owner's session it needs
   * the person's yes (see `judgedByPerson`).
   */
  judgment?: true;
  handler(input: z.infer<I>, ctx: CommandContext): Promise<z.input<O>>;
}

/** A command that runs before (or without) a workspace: `init`, `import`, `capabilities`. */
export interface BareCommand<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType>
  extends CommandBase<I, O> {
  workspace: "none";
  handler(input: z.infer<I>, ctx: BareContext): Promise<z.input<O>>;
}

/**
 * A command's schema, or a function that builds it: built on first read of `input` or `output`,
 * so a CLI call builds the schemas of the command it runs, not those of every command its
 * domain declares (a zod schema costs ~10 µs a node to build, hundreds of them per domain).
 */
export type Lazy<S> = S | (() => S);

/** What a domain declares: the command with its schemas given as they are or as builders. */
type Declared<C extends { input: unknown; output: unknown }> = Omit<C, "workspace" | "input" | "output"> & {
  input: Lazy<C["input"]>;
  output: Lazy<C["output"]>;
};

export function defineCommand<I extends z.ZodObject, O extends z.ZodType>(
  command: Declared<WorkspaceCommand<I, O>>,
): WorkspaceCommand<I, O> {
  return withSchemas({ ...command, workspace: "required" }) as WorkspaceCommand<I, O>;
}

export function defineBareCommand<I extends z.ZodObject, O extends z.ZodType>(
  command: Declared<BareCommand<I, O>>,
): BareCommand<I, O> {
  return withSchemas({ ...command, workspace: "none" }) as BareCommand<I, O>;
}

/** `input` and `output` as properties every reader sees the same way, each built at most once. */
function withSchemas<C extends { input: unknown; output: unknown }>(command: C): C {
  for (const key of ["input", "output"] as const) {
    const declared = command[key];
    if (typeof declared !== "function") continue;
    let built: unknown;
    Object.defineProperty(command, key, {
      enumerable: true,
      get: () => {
        built ??= (declared as () => unknown)();
        return built;
      },
    });
  }
  return command;
}

// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous table erases each command's own types; each is checked where declared.
export type AnyCommand = WorkspaceCommand<any, any> | BareCommand<any, any>;
