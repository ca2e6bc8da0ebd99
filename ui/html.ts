import htm from "htm";
import { h } from "preact";

/** Tagged templates instead of JSX: no transform step, and everything interpolated is escaped text. */
export const html = htm.bind(h);
