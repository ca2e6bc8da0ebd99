/**
 * Deterministic fact corpora for the knowledge bench: plausible project facts built from a shared
 * vocabulary (so distractors compete for the same words), plus hand-written targets, each paired
 * with a question phrased differently from the fact it should find.
 */

const COMPONENTS = [
  "billing",
  "auth",
  "search",
  "gateway",
  "scheduler",
  "ingest",
  "reporting",
  "checkout",
  "inventory",
  "notifications",
  "payments",
  "profile",
  "catalog",
  "export",
  "audit",
  "session",
  "upload",
  "metrics",
];
const ENVS = ["staging", "production", "dev", "preview", "qa", "canary"];
const TECH = [
  "Postgres",
  "Redis",
  "SQLite",
  "Kafka",
  "RabbitMQ",
  "Elasticsearch",
  "S3",
  "nginx",
  "Node 20",
  "Go",
  "Python",
  "MySQL",
  "ClickHouse",
  "Memcached",
];
const OWNERS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"];
const VERBS = [
  "reads from",
  "writes to",
  "depends on",
  "caches results in",
  "streams events to",
  "backs up to",
];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];

/** A small, seeded generator, so every run benchmarks the same corpus. */
export function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, list: readonly T[]): T =>
  list[Math.floor(random() * list.length)] as T;

const TEMPLATES: ((r: () => number, i: number) => string)[] = [
  (r, i) =>
    `The ${pick(r, COMPONENTS)} service in ${pick(r, ENVS)} ${pick(r, VERBS)} ${pick(r, TECH)} (cluster ${i % 97}).`,
  (r, i) => `${pick(r, OWNERS)} owns the ${pick(r, COMPONENTS)} ${pick(r, ENVS)} runbook, revision ${i}.`,
  (r, i) =>
    `${pick(r, TECH)} for ${pick(r, COMPONENTS)} listens on port ${2000 + (i % 7000)} in ${pick(r, ENVS)}.`,
  (r, i) =>
    `The ${pick(r, COMPONENTS)} job runs every ${1 + (i % 59)} minutes on ${pick(r, DAYS)}s in ${pick(r, ENVS)}.`,
  (r, i) =>
    `Feature flag ${pick(r, COMPONENTS)}-${i} is enabled in ${pick(r, ENVS)} but not in ${pick(r, ENVS)}.`,
  (r, i) =>
    `Incident ${i}: ${pick(r, COMPONENTS)} latency rose when ${pick(r, TECH)} ran out of connections.`,
  (r, i) => `The ${pick(r, COMPONENTS)} team reviews pull requests on ${pick(r, DAYS)}; ticket ${i}.`,
];

/** `count` distinct generated facts with topics (a repeat is skipped, not counted). */
export function generatedFacts(count: number, seed = 42): { text: string; topics: string[] }[] {
  const random = rng(seed);
  const facts: { text: string; topics: string[] }[] = [];
  const seen = new Set<string>();
  for (let i = 0; facts.length < count; i++) {
    const template = TEMPLATES[i % TEMPLATES.length] as (r: () => number, i: number) => string;
    const text = template(random, i);
    const key = text.toLowerCase().replace(/[^a-z0-9]+/g, " ");
    if (seen.has(key)) continue;
    seen.add(key);
    facts.push({ text, topics: [pick(random, COMPONENTS), pick(random, ENVS)] });
  }
  return facts;
}

/** Facts a later agent will look for, each with the question it would ask. */
export const RECALL_PAIRS: { fact: string; query: string }[] = [
  {
    fact: "The staging Postgres database listens on port 6543, not the default 5432.",
    query: "which port does staging postgres use",
  },
  {
    fact: "Deploys to production are frozen every Friday after 15:00 UTC.",
    query: "when is the production deploy freeze",
  },
  {
    fact: "The billing service retries failed webhooks five times with exponential backoff.",
    query: "how many webhook retries does billing do",
  },
  {
    fact: "API tokens expire after 30 days and are rotated by the ops-rotate cron.",
    query: "token expiry rotation",
  },
  {
    fact: "Integration tests need the fake SMTP server started with `make mailhog`.",
    query: "integration tests email smtp server",
  },
  {
    fact: "The search index is rebuilt nightly at 02:00 from the catalog snapshot.",
    query: "when is the search index rebuilt",
  },
  {
    fact: "Customer PII must never be written to application logs; use the redact() helper.",
    query: "logging personal data redaction",
  },
  {
    fact: "The mobile app reads feature flags from the /v2/flags endpoint, cached for 60 seconds.",
    query: "mobile feature flags endpoint cache",
  },
  {
    fact: "Our CI runners have 2 cores and 7 GB of memory, so test parallelism is capped at 2.",
    query: "how many cores do CI runners have",
  },
  {
    fact: "Invoices are generated in the customer's currency using the ECB rate of the previous day.",
    query: "invoice currency exchange rate source",
  },
  {
    fact: "The legacy SOAP endpoint is still used by the Acme Corp integration until March.",
    query: "who still uses the soap endpoint",
  },
  {
    fact: "Database migrations must be backwards compatible for one release (expand, then contract).",
    query: "migration compatibility rule expand contract",
  },
  {
    fact: "The on-call rotation hands over on Mondays at 10:00 Berlin time.",
    query: "on-call handover time",
  },
  {
    fact: "Image uploads larger than 20 MB are rejected by the nginx client_max_body_size setting.",
    query: "maximum upload size nginx",
  },
  {
    fact: "The recommendation model is retrained weekly on Sunday using the last 90 days of clicks.",
    query: "recommendation model retraining schedule",
  },
  { fact: "Password hashing uses argon2id with 64 MB memory cost.", query: "password hash algorithm" },
  {
    fact: "The analytics warehouse is ClickHouse, loaded hourly by the etl-loader job.",
    query: "analytics warehouse technology",
  },
  {
    fact: "Error budgets are 99.9% monthly availability for the public API.",
    query: "public api availability slo",
  },
  {
    fact: "Terraform state lives in the s3 bucket infra-tfstate with DynamoDB locking.",
    query: "where is terraform state stored",
  },
  {
    fact: "The dark mode theme tokens are defined in packages/ui/tokens/dark.json.",
    query: "dark mode theme tokens file",
  },
  {
    fact: "Release notes are drafted by the docs team from merged PR labels.",
    query: "who writes release notes",
  },
  {
    fact: "The websocket gateway drops idle connections after 120 seconds without a ping.",
    query: "websocket idle timeout",
  },
  {
    fact: "Email templates are rendered with MJML and stored under templates/email.",
    query: "email template rendering",
  },
  { fact: "The fraud score threshold for manual review is 0.82.", query: "fraud review threshold" },
  {
    fact: "Kubernetes pods for the ingest workers request 500m CPU and 1 GiB memory.",
    query: "ingest worker pod resources",
  },
  {
    fact: "Café Lumière is the vendor for the office coffee machine; their support line is 555-0142.",
    query: "coffee machine vendor cafe lumiere",
  },
  {
    fact: "The GDPR data export must be delivered within 30 days of a request.",
    query: "gdpr export deadline",
  },
  {
    fact: "Local development uses Docker Compose profiles: core, full and e2e.",
    query: "docker compose profiles local dev",
  },
  {
    fact: "The CDN caches static assets for one year; filenames carry a content hash.",
    query: "cdn static asset cache duration",
  },
  {
    fact: "Support tickets tagged urgent page the on-call engineer through PagerDuty.",
    query: "urgent support ticket paging",
  },
  {
    fact: "The pricing page A/B test ends on the 15th and is owned by growth.",
    query: "pricing page experiment end date",
  },
  {
    fact: "Backups of the primary database are kept for 35 days and tested monthly by restoring into qa.",
    query: "database backup retention",
  },
  {
    fact: "The Go services are built with -trimpath and CGO disabled for reproducible binaries.",
    query: "reproducible go builds flags",
  },
  {
    fact: "Translations are managed in Crowdin and synced by the i18n-sync workflow.",
    query: "translation management tool",
  },
  {
    fact: "The rate limiter allows 600 requests per minute per API key, with bursts of 100.",
    query: "api rate limit per key",
  },
];
