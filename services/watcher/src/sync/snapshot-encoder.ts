// One protobuf writer reused for every snapshot the watcher encodes: finish() copies the bytes out
// and rewinds it, keeping its grown buffer, where a writer per encode grows a new one from a few
// bytes every time. An encode that throws (a value the wire type refuses, e.g. an int32 out of
// range) leaves the writer mid-message; it is rewound then too, or the next snapshot, of another
// key, would be written after the failed one's partial bytes.
import { SyncMarker, type Codec } from "@lockstep/contracts";

type Writer = ReturnType<typeof SyncMarker.encode>;

export class SnapshotEncoder {
  private readonly writer: Writer = (() => {
    const w = SyncMarker.encode(SyncMarker.fromPartial({})); // the codecs' writer class, without a dependency on it
    w.finish();
    return w;
  })();

  encode<T>(codec: Codec<T>, value: T): Uint8Array {
    try {
      return codec.encode(value, this.writer).finish();
    } catch (err) {
      this.writer.finish(); // rewinds (position and fork stack)
      throw err;
    }
  }
}
