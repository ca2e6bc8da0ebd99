import { createHash, randomBytes } from "node:crypto";

const TOKEN_PREFIX = "cairn_";

/** 256 random bits. Shown once; only the hash is stored. */
export function newToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
