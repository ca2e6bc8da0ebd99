/**
 * A name without its version or variant suffix: `python3.11` → `python`, `vim.basic` → `vim`.
 * A shared object run as a program is the dynamic loader (`ld-linux-x86-64.so.2`), which runs
 * whatever binary its arguments name.
 */
export function familyOf(name: string): string {
  if (/\.so(\.|$)/.test(name)) return "ld.so";
  const family = /^[A-Za-z_+-]*[A-Za-z_+]/.exec(name)?.[0] ?? name;
  return family.replace(/[-_]+$/, "") || name;
}
