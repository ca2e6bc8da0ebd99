/** Benchmarks print each figure beside its baseline measured in the same run, and the goal. */
export interface Row {
  name: string;
  figure: string;
  baseline?: string;
  goal?: string;
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
