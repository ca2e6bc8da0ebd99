/** The password file reader the pg driver depends on (no published types). */
declare module "pgpass" {
  /** Calls back with the password of the first line of the user's password file that matches, if any. */
  export default function pgpass(
    connection: { host?: string; port?: number | string; database?: string; user?: string },
    found: (password: string | undefined) => void,
  ): void;
}
