import pg from "pg";
import { binaryCopyRows, fieldBytes, selectBinary } from "../../../src/storage/postgres/binary-copy.js";
import { createTempDatabase } from "../../support/postgres.js";

let database: Awaited<ReturnType<typeof createTempDatabase>>;
let client: pg.Client;

beforeAll(async () => {
  database = await createTempDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query("CREATE TABLE blobs (name text PRIMARY KEY, data bytea)");
}, 60_000);

afterAll(async () => {
  await client.end();
  await database.drop();
}, 60_000);

describe("selectBinary (a query's rows through a binary COPY)", () => {
  it("returns bytea as the bytes stored (every byte value, 3 MB), text as UTF-8 and NULL as null, row by row", async () => {
    const everyByte = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const large = Buffer.alloc(3 * 1024 * 1024, everyByte);
    await client.query("INSERT INTO blobs VALUES ($1, $2), ($3, $4), ($5, NULL)", ["a", large, "it's ü", everyByte, "c"]);
    const rows = await selectBinary(client, `SELECT name, data FROM blobs ORDER BY name`);
    expect(rows).toHaveLength(3);
    const bytes = rows.map((row) => row.map((field) => fieldBytes(field)));
    expect(bytes[0]?.[0]?.toString("utf8")).toBe("a");
    // The large field in the pieces it came in (the socket's reads), joined only here.
    expect(Array.isArray(rows[0]?.[1]) && (rows[0]?.[1] as Buffer[]).length > 1).toBe(true);
    expect(bytes[0]?.[1]?.equals(large)).toBe(true);
    expect(bytes[1]?.[0]?.toString("utf8")).toBe("c");
    expect(bytes[1]?.[1]).toBeNull();
    expect(bytes[2]?.[0]?.toString("utf8")).toBe("it's ü");
    expect(Buffer.isBuffer(rows[2]?.[1]) && rows[2]?.[1].equals(everyByte)).toBe(true);
  });

  it("takes a literal escaped for it (a quote in a value), and gives no rows when none match", async () => {
    const rows = await selectBinary(client, `SELECT data FROM blobs WHERE name = ${client.escapeLiteral("it's ü")}`);
    expect(rows.map((row) => fieldBytes(row[0] ?? null)?.length)).toEqual([256]);
    expect(await selectBinary(client, `SELECT data FROM blobs WHERE name = ${client.escapeLiteral("nobody' OR '1'='1")}`)).toEqual([]);
  });

  it("leaves the connection usable for ordinary queries after it", async () => {
    await selectBinary(client, "SELECT data FROM blobs");
    expect((await client.query<{ n: number }>("SELECT count(*)::int AS n FROM blobs")).rows[0]?.n).toBe(3);
  });

  it("reads output split into chunks anywhere, a large field as views of the chunks it lies in and nothing joined", () => {
    const field = (bytes: Buffer | null) => {
      const length = Buffer.alloc(4);
      length.writeInt32BE(bytes ? bytes.length : -1);
      return bytes ? [length, bytes] : [length];
    };
    const large = Buffer.alloc(40_000, Buffer.from("snapshot"));
    const row = (...fields: (Buffer | null)[]) => [Buffer.from([0, fields.length]), ...fields.flatMap(field)];
    const whole = Buffer.concat([Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8), ...row(Buffer.from("s"), large), ...row(Buffer.from("d"), null), Buffer.from([0xff, 0xff])]);
    const largeAt = whole.indexOf(large);
    for (const cut of [1, 7, 19, 24, 25, 20_000, whole.length - 3, whole.length - 1]) {
      const chunks = [whole.subarray(0, cut), Buffer.alloc(0), whole.subarray(cut)];
      const rows = binaryCopyRows(chunks);
      expect(rows.map((r) => r.map((f) => fieldBytes(f)))).toEqual([[Buffer.from("s"), large], [Buffer.from("d"), null]]);
      // One piece per chunk the field lies in, each a view of its chunk.
      const pieces = rows[0]?.[1] as Buffer[];
      const within = cut > largeAt && cut < largeAt + large.length;
      expect(pieces.map((piece) => piece.length)).toEqual(within ? [cut - largeAt, largeAt + large.length - cut] : [large.length]);
      expect(pieces.every((piece) => piece.buffer === whole.buffer)).toBe(true);
    }
    // A small field within one chunk is a view of it, not a copy; across two, a copy.
    expect((binaryCopyRows([whole])[0]?.[0] as Buffer).buffer).toBe(whole.buffer);
    const small = Buffer.concat([whole.subarray(0, 19), ...row(Buffer.from("abc")), Buffer.from([0xff, 0xff])]);
    const split = binaryCopyRows([small.subarray(0, 26), small.subarray(26)])[0]?.[0] as Buffer;
    small.fill(0);
    expect(split.toString()).toBe("abc");
  });

  it("refuses output that is not a binary COPY's, or is cut short", () => {
    expect(() => binaryCopyRows(Buffer.from("name,data\na,1\n"))).toThrow(/no signature/);
    const header = Buffer.concat([Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8)]);
    const cut = Buffer.concat([header, Buffer.from([0, 1, 0, 0, 0, 9, 1, 2])]);
    expect(() => binaryCopyRows(cut)).toThrow(/truncated/);
    expect(binaryCopyRows(Buffer.concat([header, Buffer.from([0xff, 0xff])]))).toEqual([]);
  });
});
