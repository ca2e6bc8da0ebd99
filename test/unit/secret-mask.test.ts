import { describe, expect, it } from "vitest";
import { Capture } from "../../src/kernel/capture.js";
import {
  credentialValues,
  maskSecretsIn,
  maskTokenShapes,
  SecretMask,
} from "../../src/kernel/secret-mask.js";

const TOKEN = "cairn_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG";

/** Feed `text` in chunks of `size` bytes, as a pipe may deliver it; what comes out, whole. */
function through(mask: SecretMask, text: string, size: number): string {
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(mask.push(bytes.subarray(at, at + size)));
  out.push(mask.flush());
  return Buffer.concat(out).toString();
}

describe("masking a run's secrets in its output", () => {
  const text = `HOME=/home/u\nCAIRN_AGENT=${TOKEN}\nagain:${TOKEN}${TOKEN}\nend`;
  const masked = "HOME=/home/u\nCAIRN_AGENT=[redacted]\nagain:[redacted][redacted]\nend";

  it("masks every occurrence however the output is split into chunks", () => {
    for (const size of [1, 2, 3, 7, 13, 48, 49, 50, 64, 4096])
      expect(through(new SecretMask([TOKEN]), text, size), `chunks of ${size}`).toBe(masked);
  });

  it("loses and reorders nothing: output without a secret comes out as it went in", () => {
    const plain = "cairn_ is a prefix, not a token\n".repeat(50);
    for (const size of [1, 5, 48, 1000]) expect(through(new SecretMask([TOKEN]), plain, size)).toBe(plain);
  });

  it("passes output through untouched when there is no secret to mask", () => {
    const mask = new SecretMask([]);
    const chunk = Buffer.from(`x${TOKEN}`);
    expect(mask.push(chunk)).toBe(chunk);
    expect(mask.flush().length).toBe(0);
  });
});

describe("masking anything shaped like an agent token in output cairn keeps", () => {
  const token = `cairn_${"Ab9_-".repeat(8)}xyz`;

  it("masks a whole token, and one cut after 20 characters where kept output ends", () => {
    expect(token).toHaveLength(49);
    expect(maskTokenShapes(`CAIRN_AGENT=${token}\nnext`)).toBe("CAIRN_AGENT=cairn_[redacted]\nnext");
    expect(maskTokenShapes(`x ${token.slice(0, 26)}`)).toBe("x cairn_[redacted]");
    // Names that only start alike are left alone.
    expect(maskTokenShapes("cairn_mcp cairn_test-123")).toBe("cairn_mcp cairn_test-123");
  });

  it("applies to what an OS tool or skill script printed, cut at the cap or not", () => {
    const whole = new Capture(1_000);
    whole.add(Buffer.from(`env: CAIRN_AGENT=${token}\n`));
    expect(whole.text()).toBe("env: CAIRN_AGENT=cairn_[redacted]\n");
    const cut = new Capture(50);
    cut.add(Buffer.from(`env: CAIRN_AGENT=${token}\n`));
    expect(cut.text()).toMatch(/^env: CAIRN_AGENT=cairn_\[redacted\]\n… truncated/);
  });
});

describe("masking the runner's credentials in output cairn keeps", () => {
  const env = {
    GITHUB_TOKEN: "ghp_0123456789abcdefghij",
    PGPASSWORD: "correct-horse-battery",
    DATABASE_URL: "postgres://app:hunter2hunter2@db/app",
    DEBUG_TOKEN: "1",
    HOME: "/home/someone-long",
  };

  it("masks values of variables named as credentials, and passwords in URLs; not settings", () => {
    expect(credentialValues(env).sort()).toEqual(
      ["correct-horse-battery", "ghp_0123456789abcdefghij", "hunter2hunter2"].sort(),
    );
    const printed = Object.entries(env)
      .map(([name, value]) => `${name}=${value}`)
      .join("\n");
    const masked = maskSecretsIn(printed, env);
    expect(masked).toContain("GITHUB_TOKEN=[redacted]\nPGPASSWORD=[redacted]");
    expect(masked).toContain("postgres://app:[redacted]@db/app");
    expect(masked).toContain("DEBUG_TOKEN=1\nHOME=/home/someone-long");
  });

  it("masks a credential cut at either end of a kept tail or a capture", () => {
    expect(maskSecretsIn("0123456789abcdefghij\nnext", env)).toBe("[redacted]\nnext");
    expect(maskSecretsIn("last line: ghp_0123456", env)).toBe("last line: [redacted]");
    // A few characters alike are not taken for a credential.
    expect(maskSecretsIn("ghij then", env)).toBe("ghij then");
  });
});
