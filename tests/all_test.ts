/**
 * Runs every test file of this folder in one module. The harness's in-process server and its
 * embedded database must outlive each file: Deno's runner tears down the Node-compatible sockets
 * a test module opened when that module finishes, which would cut the database connection that
 * the next file shares. A single entry module keeps them alive for the whole run.
 */
const here = new URL("./", import.meta.url);

/**
 * Files that test the in-process server itself (its processes, environment, internals or the pages
 * it serves), which the emulated hosted project (TEST_TARGET=hosted) does not have.
 */
const LOCAL_ONLY =
  /^(faults_.*|local_development|workers|e2e_web|readme_tour|migrate|openapi|streamed_finds|content_updates|open_ai_request|upload|round_trips)_test\.ts$/;
const hosted = Deno.env.get("TEST_TARGET") === "hosted";
const files: string[] = [];
for await (const entry of Deno.readDir(here)) {
  if (entry.isFile && entry.name.endsWith("_test.ts") && entry.name !== "all_test.ts") {
    if (hosted && LOCAL_ONLY.test(entry.name)) continue;
    files.push(entry.name);
  }
}
for (const name of files.sort()) await import(new URL(name, here).href);

if (hosted) {
  const { hosted: emulation } = await import("./_harness.ts");
  // Registered last, so it runs after every other test.
  Deno.test("the whole suite stayed within the hosted platform's limits", () => {
    const breaches = emulation?.gateway.breaches ?? [];
    if (breaches.length > 0) throw new Error(`Limits breached:\n${breaches.join("\n")}`);
    if ((emulation?.gateway.starts.size ?? 0) < 40) {
      throw new Error("the emulation started fewer function instances than the suite calls");
    }
  });
}
