import { BinaryWriter } from "@bufbuild/protobuf/wire";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Condition } from "./gen/lockstep/common/v1/common.js";
import { ClusterVersionState } from "./gen/lockstep/state/v1/cluster.js";
import { Timestamp } from "./gen/google/protobuf/timestamp.js";
import { INT64_AS_TEXT, InternTable, LeanReader, leanDecode } from "./lean-reader.js";

// Short ASCII strings from a small alphabet, so the same values (and intern-slot collisions) recur.
const shortText = fc.string({ unit: fc.constantFrom("a", "b", "W", "-", ".", "0", "9"), maxLength: 6 });
const anyText = fc.oneof(shortText, fc.string({ unit: "grapheme", maxLength: 60 }), fc.string({ minLength: 40, maxLength: 80 }));
const int64Text = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 50n }),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.constantFrom(0n, 2n ** 49n - 1n, 2n ** 49n, 2n ** 53n + 1n, -1n),
).map(String);

const condition = fc.record({
  type: anyText,
  status: shortText,
  reason: anyText,
  message: anyText,
  lastTransitionTime: fc.option(fc.date({ min: new Date(0), max: new Date("2200-01-01T00:00:00Z"), noInvalidDate: true }), { nil: undefined }),
});

describe("LeanReader", () => {
  const table = new InternTable();

  it("decodes exactly what the default reader decodes", () => {
    fc.assert(
      fc.property(
        fc.record({ name: anyText, uid: shortText, generation: int64Text, observedGeneration: int64Text, conditions: fc.array(condition, { maxLength: 4 }) }),
        (partial) => {
          const bytes = ClusterVersionState.encode(ClusterVersionState.fromPartial(partial)).finish();
          expect(leanDecode(ClusterVersionState, bytes, table)).toEqual(ClusterVersionState.decode(bytes));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("gives the same text for strings that share an intern slot, and for non-ASCII and long strings", () => {
    const texts = ["worker", "master", "Updating", "héllo wörld", "x".repeat(81), "uncordon-rendered-worker-127cf0a3ce191d351c6549563946b32a", "", "4.16.1", "4.16.10"];
    for (let i = 0; i < 5000; i++) texts.push(`worker-${i}`);
    for (const round of [1, 2]) {
      for (const text of texts) {
        const bytes = Condition.encode({ type: text, status: "True", reason: text, message: "" }).finish();
        const back = leanDecode(Condition, bytes, table);
        expect(back.type, `round ${round}`).toBe(text);
        expect(back.reason).toBe(text);
      }
    }
  });

  it("rejects a string that runs past the end of the buffer, as the default reader does", () => {
    const w = new BinaryWriter();
    w.tag(1, 2).uint32(10).raw(new TextEncoder().encode("abc"));
    const bytes = w.finish();
    expect(() => Condition.decode(bytes)).toThrow(RangeError);
    expect(() => Condition.decode(new LeanReader(bytes, table))).toThrow(RangeError);
  });

  it("shares texts only through the table its owner passes", () => {
    const mine = new InternTable();
    const other = new InternTable();
    const bytes = Condition.encode({ type: "Updating", status: "True", reason: "Draining", message: "" }).finish();
    const a = leanDecode(Condition, bytes, mine);
    expect(mine.slots.filter((t) => t !== undefined).sort()).toEqual(["Draining", "True", "Updating"]);
    expect(other.slots.every((t) => t === undefined)).toBe(true);
    expect(leanDecode(Condition, bytes, other)).toEqual(a);
  });

  it("interns the MCO's drain request names, which every node carries, and not longer texts", () => {
    const table = new InternTable();
    const drain = "uncordon-rendered-worker-127cf0a3ce191d351c6549563946b32a";
    leanDecode(Condition, Condition.encode({ type: drain, status: "", reason: "y".repeat(81), message: "" }).finish(), table);
    expect(table.slots.filter((t) => t !== undefined)).toEqual([drain]);
  });

  it("takes the int64 fast path only because the generated decoders turn int64 into text", () => {
    // Fails if the generator's options change (e.g. forceLong=bigint): LeanReader then falls back
    // to BinaryReader's bigint, which this test makes visible instead of silently slower.
    expect(INT64_AS_TEXT).toBe(true);
    const bytes = Timestamp.encode({ seconds: "1700000000", nanos: 0 }).finish();
    const reader = new LeanReader(bytes, new InternTable());
    reader.uint32();
    expect(reader.int64()).toBe("1700000000");
    expect(typeof Timestamp.decode(bytes).seconds).toBe("string");
  });
});
