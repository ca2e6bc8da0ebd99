import { crypto, sha256Hex } from "../../kernel/builtins.js";

const TOKEN_PREFIX = "cairn_";

/** 256 random bits. Shown once; only the hash is stored. */
export function newToken(): string {
  return TOKEN_PREFIX + crypto().randomBytes(32).toString("base64url");
}

export function hashToken(token: string): string {
  return sha256Hex(token);
}
