import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import amqplib from 'amqplib';
import { waitFor } from './wait';

/**
 * A RabbitMQ node the test owns and can stop and start again (test/e2e/broker-outage.test.ts):
 * a second `rabbitmq-server` beside the machine's broker, with its own node name
 * (`sgtest-<pid>-<hex>@localhost`), its own AMQP and distribution ports (free loopback ports
 * below the ephemeral range), and its own config, mnesia, log and (empty) enabled-plugins files
 * under a temp dir — so no management plugin, and nothing of the machine's broker (its
 * `/etc/rabbitmq` files, its cookie, its ports) is read or touched.
 *
 * **Why a foreground child.** The node runs as a child process of the test (the
 * `rabbitmq-server` script in the foreground, in a process group of its own). Stopping it is a
 * SIGTERM to that script, which stops the Erlang VM gracefully (RabbitMQ closes its client
 * connections with `connection.close` 320 CONNECTION_FORCED, flushes its message stores, exits)
 * and the child's `exit` event says when it is gone; a SIGKILL of the group is the crash.
 * `rabbitmq-server -detached` would instead need `rabbitmqctl stop` (and so the node's Erlang
 * cookie, the machine's one readable only by the `rabbitmq` user) or the pid file, and gives no
 * exit event to wait on. A restart uses the same node name, ports and mnesia dir, so durable
 * exchanges, queues and their persistent messages survive it, as on a real broker restart.
 *
 * Measured on the 2-core CI machine (RabbitMQ 3.10.8, Erlang 25): a cold start to the first
 * AMQP connection in about 8 s, a restart about 6 s, a graceful stop about 2.5 s.
 */
export interface RabbitNode {
  /** `amqp://guest:guest@127.0.0.1:<port>`: guest may log in from loopback. */
  readonly url: string;
  /** The AMQP port (loopback). */
  readonly port: number;
  /** The Erlang node name. */
  readonly nodeName: string;
  /** Whether the node process is running (started and not yet exited). */
  readonly running: boolean;
  /**
   * Starts the node (again, after {@link stop}: same ports and data) and resolves once an AMQP
   * connection succeeds. Rejects, with the node's last log lines, when the process exits first
   * or no connection succeeds within `timeoutMs` (default 60 000 ms; the process is then killed).
   */
  start(timeoutMs?: number): Promise<void>;
  /**
   * Stops the node: SIGTERM (a graceful broker stop), or SIGKILL with `kill: true` (a crash).
   * Resolves once the process has exited and closed its output; a graceful stop not done within `timeoutMs` (default
   * 30 000 ms) is finished with SIGKILL. Nothing happens when it is not running.
   */
  stop(opts?: { kill?: boolean; timeoutMs?: number }): Promise<void>;
  /** The node's last log lines (stdout and stderr; at most 200), for failure messages. */
  log(): string;
  /** Stops the node (SIGKILL) and deletes its directory. Never throws. */
  remove(): Promise<void>;
}

/** The lines of log kept per node. */
const LOG_LINES = 200;

/**
 * The `rabbitmq-server` script to run, or null when none is installed. `TEST_RABBITMQ_SERVER`
 * names one explicitly; otherwise the packaged script `/usr/lib/rabbitmq/bin/rabbitmq-server`
 * (Debian, Ubuntu, the RPMs: the `/usr/sbin` one is a wrapper that re-runs it as the
 * `rabbitmq` user, losing this process's environment), else `rabbitmq-server` on the PATH (a
 * generic-unix or Homebrew install).
 */
export function rabbitServerScript(): string | null {
  const explicit = process.env.TEST_RABBITMQ_SERVER;
  if (explicit) return existsSync(explicit) ? explicit : null;
  const packaged = '/usr/lib/rabbitmq/bin/rabbitmq-server';
  if (existsSync(packaged)) return packaged;
  try {
    const found = execFileSync('sh', ['-c', 'command -v rabbitmq-server'], { encoding: 'utf8' }).trim();
    return found || null;
  } catch {
    return null;
  }
}

/**
 * Whether a node can be started here, decided once at load (so a file can pick `describe` or
 * `describe.skip`). Without `rabbitmq-server` it prints why and returns false, unless
 * `TEST_RABBITMQ_NODE` is set (CI sets it: .ci/run installs RabbitMQ), where that is an error.
 */
export function rabbitNodeAvailable(): boolean {
  if (rabbitServerScript()) return true;
  const why = process.env.TEST_RABBITMQ_SERVER
    ? `TEST_RABBITMQ_SERVER=${process.env.TEST_RABBITMQ_SERVER} does not exist`
    : 'rabbitmq-server is not installed (apt-get install rabbitmq-server)';
  if (process.env.TEST_RABBITMQ_NODE) throw new Error(`TEST_RABBITMQ_NODE is set but ${why}`);
  console.warn(`skipping the broker outage test: ${why}`);
  return false;
}

/** The first port of the kernel's ephemeral range (Linux; 32768 elsewhere). */
function ephemeralRangeStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 11_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/** Whether `port` can be bound on 127.0.0.1 now. */
function portFree(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free port on 127.0.0.1 below the kernel's ephemeral range (from 10000 up), not in `taken`.
 * Below it, because the node must get the same port back when it restarts: a port of the
 * ephemeral range could meanwhile become the local end of some outgoing connection, or another
 * test's `listen(0)`, and the restart would fail with `eaddrinuse`.
 */
async function freePort(taken: readonly number[]): Promise<number> {
  const low = 10_000;
  const high = ephemeralRangeStart();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (taken.includes(port) || RABBITMQ_DEFAULT_PORTS.includes(port)) continue;
    if (await portFree(port)) return port;
  }
  throw new Error(`no free port found in ${low}–${high - 1}`);
}

/** Ports a machine's own RabbitMQ may use (epmd, AMQP, TLS, distribution, management, CLI). */
const RABBITMQ_DEFAULT_PORTS = [
  4369, 5671, 5672, 15672, 25672, 35672, 35673, 35674, 35675, 35676, 35677, 35678, 35679, 35680, 35681, 35682,
];

/** Whether an AMQP connection to `url` succeeds within 2 s (closed at once). */
async function answers(url: string): Promise<boolean> {
  try {
    const connection = await amqplib.connect(url, { timeout: 2000 });
    await connection.close().catch(() => undefined);
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates a node (not started: call {@link RabbitNode.start}). Its files live in a new temp dir,
 * deleted by {@link RabbitNode.remove}; a node still running when this process exits is killed.
 */
export async function createRabbitNode(): Promise<RabbitNode> {
  const script = rabbitServerScript();
  if (!script) throw new Error('rabbitmq-server is not installed');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-rabbit-'));
  const port = await freePort([]);
  const distPort = await freePort([port]);
  const nodeName = `sgtest-${process.pid}-${randomBytes(3).toString('hex')}@localhost`;
  const url = `amqp://guest:guest@127.0.0.1:${port}`;

  // Loopback only; a low disk alarm threshold so a nearly full /tmp on a CI machine does not
  // block publishers (RabbitMQ's default is 50 MB free).
  writeFileSync(
    path.join(dir, 'rabbitmq.conf'),
    [`listeners.tcp.1 = 127.0.0.1:${port}`, 'disk_free_limit.absolute = 8MB', ''].join('\n'),
  );
  writeFileSync(path.join(dir, 'enabled_plugins'), '[].\n');
  writeFileSync(path.join(dir, 'rabbitmq-env.conf'), '');

  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    // Erlang keeps the node's own cookie in $HOME/.erlang.cookie (created on first start).
    HOME: dir,
    RABBITMQ_NODENAME: nodeName,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq.conf'),
    RABBITMQ_CONF_ENV_FILE: path.join(dir, 'rabbitmq-env.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(dir, 'log'),
    RABBITMQ_LOGS: '-',
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
    // An epmd this node has to start listens on loopback only.
    ERL_EPMD_ADDRESS: '127.0.0.1',
    ERL_CRASH_DUMP: path.join(dir, 'erl_crash.dump'),
  };

  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const l of chunk.toString('utf8').split('\n')) if (l.trim()) lines.push(l);
    if (lines.length > LOG_LINES) lines.splice(0, lines.length - LOG_LINES);
  };
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const killGroup = (signal: NodeJS.Signals) => {
    if (child?.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const onExit = () => killGroup('SIGKILL');
  process.on('exit', onExit);

  const node: RabbitNode = {
    url,
    port,
    nodeName,
    get running() {
      return child !== undefined;
    },
    async start(timeoutMs = 60_000) {
      if (child) throw new Error(`RabbitMQ node ${nodeName} is already running`);
      lines.push(`--- start ${new Date().toISOString()}`);
      const proc = spawn(script, [], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      child = proc;
      proc.stdout!.on('data', keep);
      proc.stderr!.on('data', keep);
      // Gone once its output pipes are closed too (`close`, after `exit`): what the node started
      // (erl_child_setup, inet_gethost) is killed with its process group at `exit`.
      exited = new Promise<void>((resolve) => {
        proc.on('exit', (code, signal) => {
          lines.push(`--- exited (code ${code}, signal ${signal}) ${new Date().toISOString()}`);
          try {
            process.kill(-proc.pid!, 'SIGKILL');
          } catch {
            // the group is empty
          }
          if (child === proc) child = undefined;
        });
        proc.on('close', () => resolve());
        proc.on('error', (err) => {
          lines.push(`--- could not run ${script}: ${err.message}`);
          if (child === proc) child = undefined;
          resolve();
        });
      });
      try {
        await waitFor(
          async () => {
            if (child !== proc) throw new Error('the node exited while starting');
            return answers(url);
          },
          { what: `RabbitMQ node ${nodeName} to accept AMQP on port ${port}`, timeoutMs, intervalMs: 250 },
        );
      } catch (err) {
        await node.stop({ kill: true });
        throw new Error(`${(err as Error).message}\n${node.log()}`, { cause: err });
      }
    },
    async stop({ kill = false, timeoutMs = 30_000 } = {}) {
      if (!child) return exited;
      const proc = child;
      if (kill) killGroup('SIGKILL');
      else proc.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
      const outcome = await Promise.race([exited.then(() => 'exited' as const), late]);
      clearTimeout(timer);
      if (outcome === 'late') {
        lines.push(`--- not stopped within ${timeoutMs} ms: SIGKILL`);
        killGroup('SIGKILL');
        await exited;
      }
    },
    log() {
      return `RabbitMQ node ${nodeName} (dir ${dir}), last log lines:\n${lines.join('\n')}`;
    },
    async remove() {
      await node.stop({ kill: true }).catch(() => undefined);
      process.off('exit', onExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return node;
}
