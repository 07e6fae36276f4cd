import { deepStrictEqual, equal } from "node:assert/strict";
import { CappedLog, type LogFields } from "./capped_log.ts";

function harness(limit: number, start = 1_000_020_000) {
  let now = start;
  const lines: { event: string; fields: LogFields }[] = [];
  const timers: { fn: () => void; at: number }[] = [];
  const capped = new CappedLog({
    event: "report",
    droppedEvent: "reports_dropped",
    limit,
    windowMs: 60_000,
    now: () => now,
    write: (event, fields) => lines.push({ event, fields }),
    schedule: (fn, delayMs) => timers.push({ fn, at: now + delayMs }),
  });
  return {
    capped,
    lines,
    timers,
    advance(ms: number) {
      now += ms;
      const due = timers.filter((t) => t.at <= now);
      timers.splice(0, timers.length, ...timers.filter((t) => t.at > now));
      for (const timer of due) timer.fn();
    },
  };
}

Deno.test("CappedLog.write() writes up to the limit in a window and counts the rest", () => {
  const h = harness(3);
  const written = Array.from({ length: 5 }, (_, i) => h.capped.write({ n: i }));
  deepStrictEqual(written, [true, true, true, false, false]);
  deepStrictEqual(h.lines.map((l) => l.fields.n), [0, 1, 2]);
  equal(h.timers.length, 1, "one summary is scheduled, however many are dropped");
});

Deno.test("CappedLog writes one dropped line when the window ends, from its timer", () => {
  const h = harness(2);
  for (let i = 0; i < 7; i++) h.capped.write({ n: i });
  h.advance(59_000);
  equal(h.lines.length, 2);
  h.advance(1_000);
  equal(h.lines.length, 3);
  equal(h.lines[2]?.event, "reports_dropped");
  equal(h.lines[2]?.fields.dropped, 5);
  equal(h.lines[2]?.fields.window_start, new Date(1_000_020_000).toISOString());
});

Deno.test("CappedLog writes the dropped line at the next write when no timer ran", () => {
  const h = harness(1);
  h.capped.write({ n: 0 });
  h.capped.write({ n: 1 });
  h.timers.length = 0;
  h.advance(61_000);
  equal(h.capped.write({ n: 2 }), true, "a new window has room again");
  deepStrictEqual(h.lines.map((l) => l.event), ["report", "reports_dropped", "report"]);
  equal(h.lines[1]?.fields.dropped, 1);
});

Deno.test("CappedLog writes no dropped line for a window that dropped nothing", () => {
  const h = harness(5);
  h.capped.write({ n: 0 });
  h.advance(120_000);
  h.capped.flush();
  h.capped.write({ n: 1 });
  deepStrictEqual(h.lines.map((l) => l.event), ["report", "report"]);
});

Deno.test("CappedLog counts each window separately", () => {
  const h = harness(1);
  h.capped.write({ n: 0 });
  h.capped.write({ n: 1 });
  h.capped.write({ n: 2 });
  h.advance(60_000);
  h.capped.write({ n: 3 });
  h.capped.write({ n: 4 });
  h.advance(60_000);
  deepStrictEqual(
    h.lines.map((l) => [l.event, l.fields.n ?? l.fields.dropped]),
    [["report", 0], ["reports_dropped", 2], ["report", 3], ["reports_dropped", 1]],
  );
});
