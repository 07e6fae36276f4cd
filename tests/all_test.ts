/**
 * Runs every test file of this folder in one module. The harness's in-process server and its
 * embedded database must outlive each file: Deno's runner tears down the Node-compatible sockets
 * a test module opened when that module finishes, which would cut the database connection that
 * the next file shares. A single entry module keeps them alive for the whole run.
 */
const here = new URL("./", import.meta.url);
const files: string[] = [];
for await (const entry of Deno.readDir(here)) {
  if (entry.isFile && entry.name.endsWith("_test.ts") && entry.name !== "all_test.ts") {
    files.push(entry.name);
  }
}
for (const name of files.sort()) await import(new URL(name, here).href);
