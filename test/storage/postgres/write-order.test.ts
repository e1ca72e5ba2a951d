import { inWriteOrder } from "../../../src/storage/postgres/index-snapshots.js";

describe("inWriteOrder", () => {
  it("orders written items by their seq as numbers, whatever order a statement returned them in", () => {
    const rows = ["12", "9", "100", "10", "11"].map((seq) => ({ xmin: seq, id: `item-${seq}` }));
    expect(inWriteOrder(rows).map((row) => row.xmin)).toEqual(["9", "10", "11", "12", "100"]);
  });

  it("keeps the order of rows with the same seq", () => {
    const rows = [{ xmin: "7", id: "a" }, { xmin: "3", id: "b" }, { xmin: "7", id: "c" }];
    expect(inWriteOrder(rows).map((row) => row.id)).toEqual(["b", "a", "c"]);
  });
});
