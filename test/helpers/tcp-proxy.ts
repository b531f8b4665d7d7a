import net from 'node:net';
import { AddressInfo } from 'node:net';

/**
 * What the proxy does with traffic: `pass` forwards it; `down` refuses new connections and
 * drops open ones (a database server that stopped); `frozen` accepts connections but forwards
 * nothing in either direction (a server stopped with SIGSTOP, or a network black hole).
 */
export type ProxyMode = 'pass' | 'down' | 'frozen';

/** A loopback TCP proxy in front of a real database server, for fault injection without mocks. */
export interface TcpProxy {
  port: number;
  /** Switches the mode; `down` closes every open connection at once. */
  set(mode: ProxyMode): void;
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1 (ephemeral port) to `target`. While `frozen`, bytes from either
 * side are held and delivered, in order, when the mode returns to `pass` (like a thawed server).
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'pass';
  const pairs = new Set<{ client: net.Socket; server: net.Socket; flush(): void }>();

  const server = net.createServer((client) => {
    if (mode === 'down') {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    const held: Array<[net.Socket, Buffer]> = [];
    const forward = (to: net.Socket) => (chunk: Buffer) => {
      if (mode === 'pass' && held.length === 0) to.write(chunk);
      else held.push([to, chunk]);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    const pair = {
      client,
      server: upstream,
      flush() {
        while (held.length && mode === 'pass') {
          const [to, chunk] = held.shift()!;
          if (!to.destroyed) to.write(chunk);
        }
      },
    };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    port: (server.address() as AddressInfo).port,
    set(next) {
      mode = next;
      if (next === 'down')
        for (const p of [...pairs]) {
          p.client.destroy();
          p.server.destroy();
        }
      if (next === 'pass') for (const p of pairs) p.flush();
    },
    close: async () => {
      for (const p of [...pairs]) {
        p.client.destroy();
        p.server.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
