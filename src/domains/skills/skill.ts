/** A skill as the catalog knows it, and what a catalog build found: served, shadowed, dropped. */
export interface Skill {
  name: string;
  /** The folder as found, and its real path (every file check is made against the real one). */
  dir: string;
  realDir: string;
  origin: string;
  description: string;
  /** The front matter's `name`, when it has one (a display label). */
  label?: string;
  /** SKILL.md's size in bytes. */
  bodyBytes: number;
  /** `disable-model-invocation: true`: served to people (prompts), never as a model's tool. */
  modelInvocable: boolean;
  argumentHint?: string;
  warnings: string[];
}

/** A skill with its body read (up to `READ_BYTES`), as loading it returns. */
export interface LoadedSkill extends Skill {
  body: string;
}

export interface Shadowed {
  name: string;
  dir: string;
  origin: string;
  by: { dir: string; origin: string };
}

export interface Dropped {
  dir: string;
  origin: string;
  reason: string;
}

export interface SkillCatalog {
  skills: Skill[];
  shadowed: Shadowed[];
  dropped: Dropped[];
}
