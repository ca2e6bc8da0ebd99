import { readFileSync } from "node:fs";
import { os, sha256Hex } from "./builtins.js";

/**
 * The machine a pid, a path or a checkout belongs to, as a shared store records it. A host name
 * alone does not name one: laptops and runners keep their image's default (`ubuntu`,
 * `raspberrypi`, a CI image's), and on a machine of the same name another machine's pid was judged
 * as this one's, so its live run was taken for dead. Where the install has an id (systemd's
 * /etc/machine-id, D-Bus's), the record carries a digest of it after the name: `NAME#DIGEST`
 * (a host name holds no `#`). The id itself is never stored: its manual asks that it not be
 * shown; the digest is keyed to cairn.
 */

const MACHINE_ID_FILES = ["/etc/machine-id", "/var/lib/dbus/machine-id"];

let key: string | null | undefined;

/** This install's id, digested; null where there is none to read. Read once. */
function machineKey(): string | null {
  if (key !== undefined) return key;
  key = null;
  for (const file of MACHINE_ID_FILES) {
    try {
      const id = readFileSync(file, "utf8").trim();
      if (id !== "") {
        key = sha256Hex(`cairn machine:${id}`).slice(0, 16);
        break;
      }
    } catch {
      // Not there: the next, or none.
    }
  }
  return key;
}

/** This machine as a record names it: its host name, and its install's digest where it has one. */
export function thisMachineRecord(): string {
  const own = machineKey();
  return own === null ? os().hostname() : `${os().hostname()}#${own}`;
}

/** The host name in a machine record, for people to read. */
export function machineName(recorded: string): string {
  const mark = recorded.lastIndexOf("#");
  return mark < 0 ? recorded : recorded.slice(0, mark);
}

/**
 * Whether a recorded machine is this one. A record of the name alone (written before installs
 * were told apart, or on a machine with no id) is judged by the name, as it always was; one with
 * a digest is this machine only when this install has the same.
 */
export function isThisMachine(recorded: string): boolean {
  if (machineName(recorded) !== os().hostname()) return false;
  const mark = recorded.lastIndexOf("#");
  return mark < 0 || recorded.slice(mark + 1) === machineKey();
}
