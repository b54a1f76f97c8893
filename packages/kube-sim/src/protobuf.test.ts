import { describe, expect, it } from "vitest";
import { KubeError } from "./errors.js";
import { decodeProtobuf } from "./protobuf.js";

// A minimal protobuf writer for the test's inputs (varints and length-delimited fields).
const varint = (n: number): number[] => {
  const out: number[] = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return out;
};
const bytesField = (num: number, b: Buffer | string) => {
  const buf = Buffer.isBuffer(b) ? b : Buffer.from(b, "utf8");
  return Buffer.from([...varint((num << 3) | 2), ...varint(buf.length), ...buf]);
};
const intField = (num: number, n: number) => Buffer.from([...varint(num << 3), ...varint(n)]);
const msg = (...parts: Buffer[]) => Buffer.concat(parts);
const entry = (num: number, k: string, v: Buffer | string) => bytesField(num, msg(bytesField(1, k), bytesField(2, v)));
const envelope = (apiVersion: string, kind: string, raw: Buffer) =>
  Buffer.concat([Buffer.from("k8s\0", "latin1"), bytesField(1, msg(bytesField(1, apiVersion), bytesField(2, kind))), bytesField(2, raw)]);

describe("decodeProtobuf", () => {
  it("decodes a Secret as helm stores releases: metadata, labels, data as base64, type", () => {
    const meta = msg(bytesField(1, "sh.helm.release.v1.x.v1"), bytesField(3, "ns"), entry(11, "owner", "helm"), entry(11, "status", "deployed"), bytesField(8, intField(1, 1767225600)));
    const secret = msg(bytesField(1, meta), entry(2, "release", Buffer.from([0, 1, 2, 255])), bytesField(3, "helm.sh/release.v1"), intField(5, 1));
    expect(decodeProtobuf(envelope("v1", "Secret", secret))).toEqual({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "sh.helm.release.v1.x.v1", namespace: "ns", labels: { owner: "helm", status: "deployed" }, creationTimestamp: "2026-01-01T00:00:00Z" },
      data: { release: "AAEC/w==" },
      type: "helm.sh/release.v1",
      immutable: true,
    });
  });

  it("decodes DeleteOptions, whatever group they are sent for", () => {
    const opts = msg(intField(1, 0), bytesField(4, "Background"), bytesField(5, "All"));
    expect(decodeProtobuf(envelope("meta.k8s.io/v1", "DeleteOptions", opts))).toEqual({
      apiVersion: "meta.k8s.io/v1",
      kind: "DeleteOptions",
      gracePeriodSeconds: 0,
      propagationPolicy: "Background",
      dryRun: ["All"],
    });
  });

  it("answers 415 for kinds it does not decode and 400 for what is not Kubernetes protobuf", () => {
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as KubeError;
      }
      throw new Error("no error");
    };
    expect(err(() => decodeProtobuf(envelope("v1", "Pod", Buffer.alloc(0)))).code).toBe(415);
    expect(err(() => decodeProtobuf(Buffer.from("{}"))).code).toBe(400);
    expect(err(() => decodeProtobuf(Buffer.concat([Buffer.from("k8s\0", "latin1"), Buffer.from([0x12, 0x05, 0x01])]))).code).toBe(400);
  });
});
