import { storeCredentialVariables } from "./started-for.js";
import { passwordsIn, urlWithoutPassword } from "./url-password.js";

/**
 * What a child that acts on the board as itself (an agent run with a minted token) needs to reach
 * a shared store named with its password: the URL and the store's credential variables
 * (PGPASSWORD), which `childEnv` gives every other child without.
 */
export function storeAccess(base: NodeJS.ProcessEnv): Record<string, string> {
  const access: Record<string, string> = {};
  for (const name of ["CAIRN_STORE_URL", ...storeCredentialVariables()]) {
    const value = base[name];
    if (value !== undefined) access[name] = value;
  }
  return access;
}

/**
 * The secrets `storeAccess` hands a child, to be masked in whatever it prints: the URL whole when
 * it carries a password, each of its passwords alone, and the credential variables' values
 * (PGPASSWORD). Masking the URL alone let a run print the password it was given another way.
 */
export function storeSecrets(base: NodeJS.ProcessEnv): string[] {
  const access = storeAccess(base);
  const url = access.CAIRN_STORE_URL;
  const secrets = url && urlWithoutPassword(url) !== url ? [url, ...passwordsIn(url)] : [];
  for (const name of storeCredentialVariables()) {
    const value = access[name];
    if (value) secrets.push(value);
  }
  return secrets;
}
