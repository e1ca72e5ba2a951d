import net from "node:net";

/** A port on 127.0.0.1 that was free a moment ago (the OS picks it), for a service a benchmark starts. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
