/**
 * `deno task start`: the local server (scripts/server/local_server.ts). A configuration it cannot start
 * with is printed as its one-line reason, without a stack trace, and the start exits with 1.
 */
try {
  await import("./local_server.ts");
} catch (e) {
  if (!(e instanceof Error && e.name === "ConfigurationError")) throw e;
  console.error(e.message);
  Deno.exit(1);
}
