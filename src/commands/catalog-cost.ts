/**
 * What a tool costs a model: clients hand the model each tool's name, description and input
 * schema (the output schema serves the client). Tokens are estimated as characters ÷ 4, the
 * same rule for every figure, so figures compare across runs and against the goals.
 */
export interface VisibleTool {
  name: string;
  description?: string;
  inputSchema: unknown;
}

export const estimateTokens = (chars: number) => Math.round(chars / 4);

export function modelVisibleChars(tool: VisibleTool): number {
  return tool.name.length + (tool.description ?? "").length + JSON.stringify(tool.inputSchema).length;
}

export function modelVisibleTokens(tools: readonly VisibleTool[]): number {
  return estimateTokens(tools.reduce((sum, tool) => sum + modelVisibleChars(tool), 0));
}

/** Goals per profile, in model-visible tokens; a profile without a goal is only reported. */
export const CATALOG_GOALS: Readonly<Record<string, number>> = { worker: 3_000, planner: 6_000 };

/** A description shorter than this cannot say when to call the tool, what follows and what a refusal means. */
export const MIN_DESCRIPTION_CHARS = 80;
