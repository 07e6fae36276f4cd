import { answers, freePort, waitFor } from "./free_port.ts";

/** Where the machine's PostgreSQL binaries are (override with PG_BIN). */
const PG_BIN = Deno.env.get("PG_BIN") ?? "/usr/lib/postgresql/15/bin";

/**
 * A Postgres cluster of a test's own (`initdb` + `pg_ctl`) in a temporary folder on a free port,
 * which the test may stop, start again or freeze (SIGSTOP) without touching the machine's shared
 * Postgres. initdb refuses to run as root, so as root the cluster runs as the `postgres` user.
 */
export class PostgresCluster {
  readonly dir: string;
  readonly port: number;
  readonly superuser: string;

  private constructor(dir: string, port: number, superuser: string) {
    this.dir = dir;
    this.port = port;
    this.superuser = superuser;
  }

  /** Whether this machine can make a cluster (the binaries exist). */
  static available(): boolean {
    try {
      Deno.statSync(`${PG_BIN}/initdb`);
      return true;
    } catch {
      return false;
    }
  }

  /** initdb (trust authentication, the given bootstrap superuser), then start. */
  static async create(superuser = "postgres"): Promise<PostgresCluster> {
    const dir = await Deno.makeTempDir({ prefix: "rpgcluster-" });
    await Deno.chmod(dir, 0o777);
    const cluster = new PostgresCluster(dir, freePort(), superuser);
    await cluster.#run("initdb", ["-D", cluster.#dataDir, "-A", "trust", "-U", superuser, "-N"]);
    await cluster.start();
    return cluster;
  }

  /** The URL of its `postgres` database, as the bootstrap superuser. */
  get url(): string {
    return `postgres://${this.superuser}@127.0.0.1:${this.port}/postgres`;
  }

  get #dataDir(): string {
    return `${this.dir}/data`;
  }

  /** Starts the postmaster and waits until it accepts connections. */
  async start(): Promise<void> {
    await this.#run("pg_ctl", [
      "start",
      "-w",
      "-D",
      this.#dataDir,
      "-l",
      `${this.dir}/log`,
      "-o",
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`,
    ]);
    await waitFor(`postgres on port ${this.port}`, () => answers(this.port));
  }

  /** Stops it (`fast`: open sessions are terminated, as in a restart). */
  async stop(mode: "fast" | "immediate" = "fast"): Promise<void> {
    await this.#run("pg_ctl", ["stop", "-w", "-m", mode, "-D", this.#dataDir]);
  }

  /** Process ids of the postmaster and of every backend serving a client. */
  async pids(): Promise<{ postmaster: number; backends: number[] }> {
    const pidFile = await Deno.readTextFile(`${this.#dataDir}/postmaster.pid`);
    const postmaster = Number(pidFile.split("\n")[0]);
    const backends: number[] = [];
    for await (const entry of Deno.readDir("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      try {
        const status = await Deno.readTextFile(`/proc/${entry.name}/status`);
        const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`);
        if (
          new RegExp(`^PPid:\\s+${postmaster}$`, "m").test(status) &&
          cmdline.startsWith("postgres: ") && /\d+\.\d+\.\d+\.\d+\(\d+\)/.test(cmdline)
        ) backends.push(Number(entry.name));
      } catch {
        // the process ended meanwhile
      }
    }
    return { postmaster, backends };
  }

  /** Sends a signal to processes of the cluster. */
  signal(pids: number[], signal: "SIGSTOP" | "SIGCONT"): void {
    for (const pid of pids) {
      try {
        Deno.kill(pid, signal);
      } catch {
        // already gone
      }
    }
  }

  /** Stops the cluster (resuming frozen processes first) and removes its folder. */
  async destroy(): Promise<void> {
    try {
      const { postmaster, backends } = await this.pids();
      this.signal([postmaster, ...backends], "SIGCONT");
      await this.stop("immediate");
    } catch {
      // not running
    }
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }

  /**
   * Stops the cluster at once and removes its folder, synchronously: for a process's `unload`,
   * where nothing can be awaited. pg_ctl's postmaster outlives the process that started it.
   */
  destroySync(): void {
    try {
      this.#command("pg_ctl", ["stop", "-m", "immediate", "-D", this.#dataDir]).outputSync();
      Deno.removeSync(this.dir, { recursive: true });
    } catch {
      // already gone
    }
  }

  #command(program: string, args: string[]): Deno.Command {
    return Deno.uid() === 0
      ? new Deno.Command("runuser", {
        args: ["-u", "postgres", "--", `${PG_BIN}/${program}`, ...args],
      })
      : new Deno.Command(`${PG_BIN}/${program}`, { args });
  }

  async #run(program: string, args: string[]): Promise<void> {
    const { code, stdout, stderr } = await this.#command(program, args).output();
    if (code !== 0) {
      const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
      throw new Error(`${program} ${args[0]} failed (${code}): ${text.slice(-2000)}`);
    }
  }
}
