/**
 * Masks a few known secrets (a token minted for a run) in a stream of output, including one split
 * across two chunks: a program that prints its environment must not write its credential into a
 * log file or a result. The last bytes of each chunk that could begin a secret are held until the
 * next chunk (or `flush`) shows whether they do, so output comes out whole, a little later.
 */
export class SecretMask {
  private readonly secrets: Buffer[];
  private readonly holdBack: number;
  private carry: Buffer = Buffer.alloc(0);

  constructor(
    secrets: readonly string[],
    private readonly mark = Buffer.from("[redacted]"),
  ) {
    this.secrets = [...new Set(secrets)].filter((secret) => secret.length > 0).map((s) => Buffer.from(s));
    this.holdBack = Math.max(0, ...this.secrets.map((secret) => secret.length - 1));
  }

  /** The part of the output known to be clear of a secret, masked. */
  push(chunk: Buffer): Buffer {
    if (this.secrets.length === 0) return chunk;
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    let cut = Math.max(0, data.length - this.holdBack);
    // A secret that starts before the cut and ends after it goes out whole, masked (spans come
    // sorted by start, so one the extended cut now straddles extends it again).
    const spans = this.found(data);
    for (const { start, end } of spans) if (start < cut && end > cut) cut = end;
    this.carry = Buffer.from(data.subarray(cut));
    return masked(
      data.subarray(0, cut),
      spans.filter(({ end }) => end <= cut),
      this.mark,
    );
  }

  /** What is still held back, masked: the output's end. */
  flush(): Buffer {
    const rest = masked(this.carry, this.found(this.carry), this.mark);
    this.carry = Buffer.alloc(0);
    return rest;
  }

  private found(data: Buffer): { start: number; end: number }[] {
    const spans: { start: number; end: number }[] = [];
    for (const secret of this.secrets)
      for (let at = data.indexOf(secret); at !== -1; at = data.indexOf(secret, at + secret.length))
        spans.push({ start: at, end: at + secret.length });
    return spans.sort((a, b) => a.start - b.start);
  }
}

/** `data` with each span (sorted by start) replaced by `mark`. */
function masked(data: Buffer, spans: readonly { start: number; end: number }[], mark: Buffer): Buffer {
  if (spans.length === 0) return data;
  const parts: Buffer[] = [];
  let from = 0;
  for (const { start, end } of spans) {
    if (start < from) continue; // overlapping another secret already masked
    parts.push(data.subarray(from, start), mark);
    from = end;
  }
  parts.push(data.subarray(from));
  return Buffer.concat(parts);
}

/**
 * What an agent token looks like: `cairn_` then 43 base64url characters (32 random bytes). From 20
 * on, so a token cut where a kept part of some output ends is caught too.
 */
const TOKEN_SHAPE = /cairn_[A-Za-z0-9_-]{20,43}/g;

/**
 * `text` with anything shaped like an agent token masked. Output cairn keeps and shows to other
 * agents (a check's evidence, an evaluator's tail, an OS tool's or a skill script's output) must
 * not carry one, whoever's it is and however the program came by it: any process of the user can
 * read another's environment under /proc, where a running `cairn mcp` holds its agent's token.
 */
export const maskTokenShapes = (text: string): string => text.replace(TOKEN_SHAPE, "cairn_[redacted]");
