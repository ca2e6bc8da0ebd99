import type { Setting } from "../../kernel/setting.js";
import type { Tx } from "../../store/store.js";

/**
 * The owner's setting (kernel/setting.ts), recorded by the `cairn init` that creates the workspace
 * (a checkout joining a shared one records none): the definition of done is the
 * workspace's rule, so it runs where the owner finds programs and with the owner's home, not the
 * finishing agent's. A workspace created before this records none, and its definition of done
 * runs in the caller's, as it did.
 */
const OWNER_SETTING_KEY = "owner_setting";

export async function recordOwnerSetting(tx: Tx, setting: Setting): Promise<void> {
  await tx.meta.set(OWNER_SETTING_KEY, JSON.stringify(setting));
}

export async function ownerSetting(tx: Tx): Promise<Setting | null> {
  const recorded = await tx.meta.get(OWNER_SETTING_KEY);
  return recorded ? (JSON.parse(recorded) as Setting) : null;
}
