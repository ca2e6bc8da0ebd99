import type { jsonSchemaValidator } from "@modelcontextprotocol/server";

/**
 * The SDK validates elicitation answers against JSON Schema, and by default builds an AJV
 * instance at every server start to do it. cairn never asks a client to elicit, so it passes
 * this validator instead: start-up skips AJV, and the build leaves AJV out of the bundle.
 */
export class NoElicitationValidator implements jsonSchemaValidator {
  getValidator<T>() {
    return (_input: unknown) => ({
      valid: false as const,
      data: undefined,
      errorMessage: "cairn does not request elicitation, so it validates no elicitation result",
    });
  }
}
