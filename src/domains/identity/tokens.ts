import type * as Crypto from "node:crypto";

// node:crypto brings in about twenty internal modules; the owner's CLI calls never mint or hash a
// token, so it is loaded on first use rather than with every start.
const crypto = (): typeof Crypto => process.getBuiltinModule("node:crypto");

const TOKEN_PREFIX = "cairn_";

/** 256 random bits. Shown once; only the hash is stored. */
export function newToken(): string {
  return TOKEN_PREFIX + crypto().randomBytes(32).toString("base64url");
}

export function hashToken(token: string): string {
  return crypto().createHash("sha256").update(token).digest("hex");
}
