import net from "node:net";

/**
 * A TCP proxy on a free port of 127.0.0.1 in front of `target` (say, the shared Postgres), so a
 * test can take a server away from a service without stopping it: `cut()` drops every open
 * connection and every new one at once (what a crashed server or a refused connection looks
 * like); `blackhole()` keeps connections open and forwards nothing (a hung server or a network
 * partition: only timeouts notice); `restore()` forwards again.
 */
export interface TcpProxy {
  port: number;
  mode(): ProxyMode;
  cut(): void;
  blackhole(): void;
  restore(): void;
  close(): Promise<void>;
}

export type ProxyMode = "forward" | "cut" | "blackhole";

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = "forward";
  const open = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (mode === "cut") return void client.destroy();
    if (mode === "blackhole") return; // accepted, never answered
    const upstream = net.connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  const dropAll = () => {
    for (const socket of open) socket.destroy();
  };
  return {
    port,
    mode: () => mode,
    cut: () => {
      mode = "cut";
      dropAll();
    },
    blackhole: () => {
      mode = "blackhole";
      // Bytes on open connections stop flowing too: unpipe both ways.
      for (const socket of open) {
        socket.unpipe();
        socket.pause();
      }
    },
    restore: () => {
      // Connections opened while cut or blackholed never reached the target: drop them.
      if (mode !== "forward") dropAll();
      mode = "forward";
    },
    close: async () => {
      dropAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
