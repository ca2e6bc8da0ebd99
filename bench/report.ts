/** Benchmarks print each figure beside its baseline measured in the same run, and the goal. */
export interface Row {
  name: string;
  figure: string;
  baseline?: string;
  goal?: string;
  /** Whether the figure meets its goal, where a number decides it: the run ends with those that do not. */
  met?: boolean;
}

const rows: Row[] = [];

export function report(row: Row): void {
  rows.push(row);
  process.stdout.write(
    `${row.name.padEnd(46)} ${row.figure.padEnd(18)} ${(row.baseline ?? "").padEnd(40)} ${row.goal ?? ""}\n`,
  );
}

export function header(title: string): void {
  process.stdout.write(
    `\n## ${title}\n${"measure".padEnd(46)} ${"cairn".padEnd(18)} ${"baseline (same run)".padEnd(40)} goal\n`,
  );
}

export function allRows(): readonly Row[] {
  return rows;
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;

/**
 * The goals a number decides, and those this run missed: a figure that drifts past its goal is
 * said at the end of the run, not left for a reader to spot in one line of many.
 */
export function goalsSummary(): string {
  const judged = rows.filter((row) => row.met !== undefined);
  if (judged.length === 0) return "";
  const missed = judged.filter((row) => row.met === false);
  const lines = [`\n## goals: ${judged.length - missed.length} of ${judged.length} met in this run`];
  for (const row of missed) lines.push(`not met: ${row.name.trim()}: ${row.figure} (${row.goal})`);
  return `${lines.join("\n")}\n`;
}
