import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/server";

/**
 * The SDK validates elicitation answers against JSON Schema, and by default builds an AJV
 * instance at every server start to do it. cairn never asks a client to elicit, so it passes
 * this validator instead: start-up skips AJV, and the build leaves AJV out of the bundle.
 */
export class NoElicitationValidator implements jsonSchemaValidator {
  getValidator<T>(): JsonSchemaValidator<T> {
    return () => ({
      valid: false,
      data: undefined,
      errorMessage: "cairn does not request elicitation, so it validates no elicitation result",
    });
  }
}
