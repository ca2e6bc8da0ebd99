import { closeSync, fsyncSync, linkSync, openSync, rmSync, writeSync } from "node:fs";

/** What link(2) answers where a filesystem has no hard links. */
const NO_LINKS = ["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"];

/** Numbers this process's drafts apart. */
let drafts = 0;

/**
 * Create `path` holding `content`, whole or not at all, and never over a file already there: the
 * content is written to a draft beside it, then the draft is hard-linked into place, which fails
 * with EEXIST when `path` exists. A reader never finds it empty or half written, and a crash
 * leaves only the draft, which nothing reads. Where the filesystem has no hard links,
 * `withoutLinks` places the draft (still there, whole) its own way. The draft is removed after.
 */
export function placeWhole(
  path: string,
  content: string,
  options: { mode: number; sync?: boolean; withoutLinks: (draft: string) => void },
): void {
  const draft = `${path}.${process.pid}-${++drafts}.draft`;
  rmSync(draft, { force: true });
  try {
    const fd = openSync(draft, "wx", options.mode);
    try {
      writeSync(fd, content);
      if (options.sync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(draft, path);
    } catch (error) {
      if (!NO_LINKS.includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
      options.withoutLinks(draft);
    }
  } finally {
    rmSync(draft, { force: true });
  }
}
