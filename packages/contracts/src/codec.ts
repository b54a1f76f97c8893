import type { BinaryReader, BinaryWriter } from "@bufbuild/protobuf/wire";
import { LeanReader, type InternTable } from "./lean-reader.js";

/** The part of a ts-proto message object Lockstep relies on. */
export interface Codec<T> {
  encode(message: T, writer?: BinaryWriter): BinaryWriter;
  decode(input: BinaryReader | Uint8Array, length?: number): T;
  fromPartial(object: any): T;
  toJSON(message: T): unknown;
  fromJSON(object: any): T;
}

export function encode<T>(codec: Codec<T>, message: T): Uint8Array {
  return codec.encode(message).finish();
}

/**
 * Decodes a payload; a malformed payload throws a DecodeError naming the type. A caller that keeps
 * what it decodes (a state cache) passes its intern table, so repeated strings are shared.
 */
export function decode<T>(codec: Codec<T>, typeName: string, data: Uint8Array, table?: InternTable): T {
  try {
    return codec.decode(table ? new LeanReader(data, table) : data);
  } catch (err) {
    throw new DecodeError(typeName, err);
  }
}

export class DecodeError extends Error {
  constructor(readonly typeName: string, cause: unknown) {
    super(`cannot decode ${typeName}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "DecodeError";
  }
}

/** Byte-wise equality; the watcher writes a snapshot only when its encoding changed. */
export function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
