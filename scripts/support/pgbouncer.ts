import { createHash } from "node:crypto";
import { answers } from "./free_port.ts";

const PGBOUNCER = "/usr/sbin/pgbouncer";

/** A user PgBouncer admits, with the password it checks (md5, as userlist.txt keeps it). */
export interface PoolerUser {
  name: string;
  password: string;
}

/**
 * PgBouncer (Debian's package, installed when missing) in transaction mode in front of a Postgres
 * on loopback, as the hosted pooler works: every transaction may get another server connection,
 * and no prepared statement survives (PgBouncer before 1.21 keeps none).
 */
export class PgBouncer {
  private constructor(
    readonly port: number,
    readonly dir: string,
    readonly child: Deno.ChildProcess,
  ) {}

  static async start(options: {
    serverPort: number;
    users: readonly PoolerUser[];
  }): Promise<PgBouncer> {
    await installPgBouncer();
    const dir = await Deno.makeTempDir({ prefix: "rpgpooler-" });
    await Deno.chmod(dir, 0o777); // PgBouncer runs as nobody when started by root, and logs here
    const userlist = options.users.map((u) => `"${u.name}" "md5${md5Hex(u.password + u.name)}"`);
    await Deno.writeTextFile(`${dir}/userlist.txt`, userlist.join("\n") + "\n");
    // The kernel hands out client ports from 32768 up, where a port nothing listens on may still
    // be bound: the pooler's port is drawn below that range, and a start that did not take is
    // tried again elsewhere.
    for (let attempt = 1; attempt <= 5; attempt++) {
      let port = 21_000 + Math.floor(Math.random() * 6_000);
      while (await answers(port)) port++;
      await Deno.writeTextFile(`${dir}/pgbouncer.ini`, iniFile(dir, port, options.serverPort));
      const asRoot = Deno.uid() === 0;
      const child = new Deno.Command(PGBOUNCER, {
        args: [...(asRoot ? ["-u", "nobody"] : []), `${dir}/pgbouncer.ini`],
        stdout: "null",
        stderr: "null",
      }).spawn();
      if (await listening(child, port)) return new PgBouncer(port, dir, child);
    }
    throw new Error(`PgBouncer did not start: see ${dir}/pgbouncer.log`);
  }

  async stop(): Promise<void> {
    try {
      this.child.kill("SIGTERM");
    } catch {
      // already gone
    }
    await this.child.status;
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }
}

function iniFile(dir: string, port: number, serverPort: number): string {
  return `[databases]
* = host=127.0.0.1 port=${serverPort}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
logfile = ${dir}/pgbouncer.log
auth_type = md5
auth_file = ${dir}/userlist.txt
pool_mode = transaction
max_client_conn = 4000
default_pool_size = 20
max_db_connections = 40
server_idle_timeout = 5
; PgBouncer 1.18 refuses these startup parameters unless told to drop them; hosted, they are set
; on the login role instead (docs/deploy.md).
ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout
`;
}

async function listening(child: Deno.ChildProcess, port: number): Promise<boolean> {
  let exited = false;
  child.status.then(() => (exited = true));
  for (let i = 0; i < 50; i++) {
    if (exited) return false;
    if (await answers(port)) {
      await new Promise((r) => setTimeout(r, 200));
      return !exited;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill("SIGKILL");
  return false;
}

async function installPgBouncer(): Promise<void> {
  if (await Deno.stat(PGBOUNCER).then(() => true, () => false)) return;
  for (const args of [["install", "-y", "-q", "pgbouncer"], ["update", "-q"]]) {
    await new Deno.Command("apt-get", { args, stdout: "null", stderr: "null" }).output();
  }
  const { code } = await new Deno.Command("apt-get", {
    args: ["install", "-y", "-q", "pgbouncer"],
    stdout: "null",
    stderr: "null",
  }).output();
  if (code !== 0) throw new Error("PgBouncer could not be installed (apt-get install pgbouncer)");
}

/** MD5 in hex, as PgBouncer's md5 userlist entries hold passwords. */
function md5Hex(text: string): string {
  return createHash("md5").update(text).digest("hex");
}
