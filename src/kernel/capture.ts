import { maskSecretsIn } from "./secret-mask.js";

/**
 * A bounded buffer for a child's output: the first `limit` bytes are kept, the rest only
 * counted, so a process printing gigabytes costs no memory. The text is cut on a character
 * boundary and says how much was left out, with agent tokens and credentials masked (see maskSecretsIn).
 */
export class Capture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  total = 0;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.kept >= this.limit) return;
    const room = this.limit - this.kept;
    const part = chunk.length > room ? Buffer.from(chunk.subarray(0, room)) : chunk;
    this.chunks.push(part);
    this.kept += part.length;
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  text(note: (total: number, kept: number) => string = defaultNote): string {
    let buffer = Buffer.concat(this.chunks);
    if (this.truncated) {
      // Drop a character cut in half at the limit.
      let end = buffer.length;
      while (end > 0 && ((buffer[end - 1] as number) & 0xc0) === 0x80) end--;
      if (end > 0 && (buffer[end - 1] as number) >= 0xc0) end--;
      else end = buffer.length;
      buffer = buffer.subarray(0, end);
      return `${maskSecretsIn(buffer.toString("utf8"))}${note(this.total, buffer.length)}`;
    }
    return maskSecretsIn(buffer.toString("utf8"));
  }
}

const defaultNote = (total: number, kept: number) => `\n… truncated at ${kept} bytes (of ${total}).`;
