import { z } from "zod";
import { DEFAULT_CHARS } from "../domains/limits/limits.js";

/**
 * What a person types after a slash command's or a skill's name, as one string: the shape every
 * command that renders one with arguments takes (`command get`, `command prompt`, `skill prompt`).
 */
export const PromptArgs = z.string().max(DEFAULT_CHARS).default("");
