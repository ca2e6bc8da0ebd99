import { passwordsIn } from "./url-password.js";

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

/**
 * Names of variables that hold a credential by every convention in use: `GITHUB_TOKEN`,
 * `AWS_SECRET_ACCESS_KEY`, `NPM_TOKEN`, `OPENAI_API_KEY`, `PGPASSWORD`, `DEPLOY_PASSPHRASE`...
 */
const CREDENTIAL_NAME = /TOKEN|SECRET|PASSW|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL/i;

/** Shorter values (`1`, `true`, `none`) are settings, not secrets, and would mask common words. */
const SHORTEST_CREDENTIAL = 8;

/**
 * The credentials in an environment: the values of variables named as one, and the passwords in
 * any URL it holds (`DATABASE_URL=postgres://u:pw@host`), longest first.
 */
export function credentialValues(env: NodeJS.ProcessEnv = process.env): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (CREDENTIAL_NAME.test(name) && value.length >= SHORTEST_CREDENTIAL) values.add(value);
    if (value.includes("://"))
      for (const password of passwordsIn(value))
        if (password.length >= SHORTEST_CREDENTIAL) values.add(password);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** A kept tail may begin inside a credential, or a capture end inside one: that much is masked too. */
const SHORTEST_PIECE = 6;

function maskValues(text: string, values: readonly string[]): string {
  let out = text;
  for (const value of values) {
    out = out.split(value).join("[redacted]");
    for (let length = Math.min(value.length, out.length) - 1; length >= SHORTEST_PIECE; length--) {
      if (out.startsWith(value.slice(-length))) {
        out = `[redacted]${out.slice(length)}`;
        break;
      }
    }
    for (let length = Math.min(value.length, out.length) - 1; length >= SHORTEST_PIECE; length--) {
      if (out.endsWith(value.slice(0, length))) {
        out = `${out.slice(0, -length)}[redacted]`;
        break;
      }
    }
  }
  return out;
}

/**
 * Output cairn keeps and shows to others (a check's evidence, an evaluator's tail, an agent run's
 * log, an OS tool's or a skill script's output): agent tokens masked, whoever's, and the
 * credentials of the environment the command was started from. A command an agent wrote runs
 * with its runner's environment (a test suite may need its variables), and a command that
 * printed `env` must not hand the runner's `GITHUB_TOKEN` to every agent that reads the evidence.
 * This keeps credentials out of what cairn records; it cannot stop a command from sending them
 * elsewhere, or encoding them first.
 */
export const maskSecretsIn = (text: string, env: NodeJS.ProcessEnv = process.env): string =>
  maskTokenShapes(maskValues(text, credentialValues(env)));
