/**
 * Runs the README tour: every `sh` block between `<!-- tour:start -->` and `<!-- tour:end -->`, in
 * order, in one bash session against the in-process test server, and compares each block's output
 * with the `json` or `text` block the README shows after it. Ids, UUIDs and timestamps may differ;
 * everything else must be exactly as printed, so the README cannot drift from the service.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { localServer, server, test } from "./_harness.ts";

const root = fileURLToPath(new URL("../", import.meta.url));
/** The origin the README is written for; replaced by the test server's. */
const README_ORIGIN = "http://127.0.0.1:54321";

/** One shell block of the tour and the output the README shows for it. */
interface Step {
  /** 1-based line of the block in README.md, for messages. */
  line: number;
  command: string;
  expected: { kind: "json" | "text"; text: string } | null;
}

/** The tour's steps, in README order. */
function tourSteps(markdown: string): Step[] {
  const start = markdown.indexOf("<!-- tour:start -->");
  const end = markdown.indexOf("<!-- tour:end -->");
  if (start < 0 || end < start) throw new Error("README.md has no tour markers");
  const steps: Step[] = [];
  const fence = /^```([a-z]*)\n([\s\S]*?)^```$/gm;
  const section = markdown.slice(start, end);
  const lineAt = (index: number) => markdown.slice(0, start + index).split("\n").length;
  for (const block of section.matchAll(fence)) {
    const [, lang = "", body = ""] = block;
    if (lang === "sh") {
      steps.push({ line: lineAt(block.index), command: body, expected: null });
    } else if (lang === "json" || lang === "text") {
      const last = steps.at(-1);
      if (!last || last.expected) {
        throw new Error(`README.md:${lineAt(block.index)}: output block without a command`);
      }
      last.expected = { kind: lang, text: body };
    }
  }
  return steps;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Differences between a shown and a real JSON value. UUIDs, timestamps and the integers of `id`
 * and `*_id` keys only need the same shape; everything else must be equal.
 */
function jsonDifferences(shown: unknown, real: unknown, path = "$", key = ""): string[] {
  const here = `${path}: shown ${JSON.stringify(shown)}, got ${JSON.stringify(real)}`;
  if (typeof shown === "string" && UUID.test(shown)) {
    return typeof real === "string" && UUID.test(real) ? [] : [here];
  }
  if (typeof shown === "string" && TIMESTAMP.test(shown)) {
    return typeof real === "string" && TIMESTAMP.test(real) ? [] : [here];
  }
  if (typeof shown === "number" && (key === "id" || key.endsWith("_id"))) {
    return Number.isInteger(real) && Number(real) > 0 ? [] : [here];
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(real) || real.length !== shown.length) return [here];
    return shown.flatMap((v, i) => jsonDifferences(v, real[i], `${path}[${i}]`, key));
  }
  if (shown !== null && typeof shown === "object") {
    if (real === null || typeof real !== "object" || Array.isArray(real)) return [here];
    const shownKeys = Object.keys(shown).sort();
    if (JSON.stringify(shownKeys) !== JSON.stringify(Object.keys(real).sort())) return [here];
    return shownKeys.flatMap((k) =>
      jsonDifferences(
        (shown as Record<string, unknown>)[k],
        (real as Record<string, unknown>)[k],
        `${path}.${k}`,
        k,
      )
    );
  }
  return Object.is(shown, real) ? [] : [here];
}

function lines(text: string): string[] {
  return text.replace(/\r/g, "").trimEnd().split("\n").map((l) => l.trimEnd());
}

/** Runs the steps in one bash session and returns each step's standard output. */
async function runTour(steps: Step[], file: string): Promise<string[]> {
  const marker = `@@tour-step-${crypto.randomUUID()}@@`;
  const script = ["set -euo pipefail"];
  steps.forEach((step, i) => {
    script.push(`printf '\\n${marker} ${i}\\n'`);
    script.push(step.command.replaceAll(README_ORIGIN, server.appUrl));
  });
  const deno = dirname(Deno.execPath());
  const { code, stdout, stderr } = await new Deno.Command("bash", {
    args: ["-c", script.join("\n")],
    cwd: root,
    env: {
      PATH: `${deno}:${Deno.env.get("PATH") ?? ""}`,
      // dev:user reaches the test server's database (the embedded one through its spare socket).
      DATABASE_URL: localServer!.database.url,
      NO_COLOR: "1",
      DENO_NO_UPDATE_CHECK: "1",
    },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(240_000),
  }).output();
  const out = new TextDecoder().decode(stdout);
  const parts = out.split(new RegExp(`\\n${marker} \\d+\\n`)).slice(1);
  if (code !== 0) {
    const failed = steps[parts.length - 1];
    throw new Error(
      `Tour step at ${file}:${failed?.line} exited ${code}\n` +
        `stdout:\n${parts.at(-1) ?? out}\nstderr:\n${
          new TextDecoder().decode(stderr).slice(-3000)
        }`,
    );
  }
  return parts;
}

/** The tours: the README's short one and the full one, each run on its own fresh account. */
const TOURS = [
  { file: "README.md", parts: ["dev:user", "/create-api-client", "/find-spell"] },
  {
    file: "docs/tour.md",
    parts: [
      "dev:user",
      "/create-api-client",
      "/find-spell",
      "/create-content-source",
      "/create-item",
      "/search-data",
      "/grant-character-access",
      "/oauth/access/",
      "dev:anon-key",
      "Idempotency-Key",
    ],
  },
];

test("readme tour: jsonDifferences() accepts new ids, keys and times, and nothing else", () => {
  const shown = { status: "success", data: { id: 3, user_id: crypto.randomUUID(), rank: 2 } };
  deepStrictEqual(
    jsonDifferences(shown, {
      status: "success",
      data: { id: 9, user_id: crypto.randomUUID(), rank: 2 },
    }),
    [],
  );
  equal(jsonDifferences(shown, { ...shown, status: "fail" }).length, 1);
  equal(jsonDifferences(shown, { status: "success", data: { ...shown.data, rank: 3 } }).length, 1);
  equal(jsonDifferences(shown, { status: "success", data: { ...shown.data, extra: 1 } }).length, 1);
  equal(jsonDifferences(["a", "b"], ["b", "a"]).length, 2);
});

for (const tour of TOURS) {
  const steps = tourSteps(await Deno.readTextFile(new URL(`../${tour.file}`, import.meta.url)));

  test(`${tour.file} tour: every command has its output shown and the tour covers its walk`, () => {
    ok(steps.length >= 3, "the tour has its steps");
    for (const step of steps) ok(step.expected, `${tour.file}:${step.line} shows its output`);
    const all = steps.map((s) => s.command).join("\n");
    for (const part of tour.parts) ok(all.includes(part), `the tour uses ${part}`);
  });

  test(`${tour.file} tour: the commands run against the server and print what it shows`, async () => {
    const outputs = await runTour(steps, tour.file);
    equal(outputs.length, steps.length);
    const problems: string[] = [];
    steps.forEach((step, i) => {
      const real = outputs[i] ?? "";
      const expected = step.expected;
      if (!expected) return;
      const at = `${tour.file}:${step.line}`;
      if (expected.kind === "text") {
        const shown = lines(expected.text);
        const got = lines(real);
        if (JSON.stringify(shown) !== JSON.stringify(got)) {
          problems.push(`${at}: shown\n${shown.join("\n")}\ngot\n${got.join("\n")}`);
        }
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(real);
      } catch {
        problems.push(`${at}: output is not JSON:\n${real}`);
        return;
      }
      for (const d of jsonDifferences(JSON.parse(expected.text), parsed)) {
        problems.push(`${at}: ${d}`);
      }
    });
    deepStrictEqual(problems, []);
  });
}
