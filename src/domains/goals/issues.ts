import type { z } from "zod";

/** Name every offending field so the author can fix the input without guessing. */
export function describeZodIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(top level)"}: ${issue.message}`)
    .join("; ");
}
