import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { readFrontMatter } from "../../src/domains/skills/frontmatter.js";

const header = (lines: string) => readFrontMatter(`---\n${lines}\n---\nbody\n`);

describe("front matter", () => {
  it("reads simple headers exactly as the YAML parser does", () => {
    const samples = [
      "name: pdf\ndescription: Extract text and tables from PDF files, fill forms.",
      "description: Use for C# #hashtag",
      "description: a value with a colon:inside and a 'quote'",
      "name: x\nversion: 1.10\nenabled: yes\ncount: 12",
      "description: -leading dash",
      "key: ~",
      "key: 0x1F",
      'description: "quoted"',
    ];
    for (const sample of samples) {
      const ours = header(sample);
      expect({ ...ours.data }, sample).toEqual(parse(sample, { schema: "core" }));
    }
  });

  it("recovers unquoted colons and bracketed hints, and never runs a ---js header", () => {
    expect(header("description: Use when: the user asks about PDFs").data.description).toBe(
      "Use when: the user asks about PDFs",
    );
    expect(header("description: ends with a colon:").data.description).toBe("ends with a colon:");
    expect(header("argument-hint: [pr-number] [priority]").data["argument-hint"]).toBe(
      "[pr-number] [priority]",
    );
    const js = readFrontMatter("---js\n{ description: require('fs') }\n---\nbody\n");
    expect(js.present).toBe(false);
    expect(js.warnings.join()).toContain("another language");
  });

  it("warns on CRLF, a BOM, an unclosed or empty header, and drops __proto__", () => {
    expect(readFrontMatter("\uFEFF---\r\ndescription: x\r\n---\r\nbody\r\n").warnings).toHaveLength(2);
    expect(readFrontMatter("---\ndescription: x\nbody").warnings.join()).toContain("never closed");
    expect(readFrontMatter("---\n---\nbody").warnings.join()).toContain("empty");
    const proto = header("__proto__: {polluted: true}\ndescription: y");
    expect(Object.getPrototypeOf(proto.data)).toBeNull();
    expect("__proto__" in proto.data).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
