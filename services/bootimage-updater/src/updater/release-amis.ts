// AMIs a release's coreos-bootimages stream publishes. Without EC2 access the updater may only move
// AMIs it can prove are standard RHCOS images (mco-behaviors.md §3.18): besides the configured
// allow-list, every AMI of a stream it has observed qualifies, since the payload ships them. So a
// MachineSet updated at one release is updated again at the next.

import { parseStream } from "../bootimages/index.js";

/** Every AMI id in the stream (all architectures and regions); none for a malformed stream. */
export function releaseAmis(streamJson: string): string[] {
  const parsed = parseStream(streamJson);
  if (!parsed.ok) return [];
  const out: string[] = [];
  for (const arch of Object.values(parsed.stream.architectures)) {
    for (const region of Object.values(arch.awsRegions ?? {})) if (region.image) out.push(region.image);
  }
  return out;
}
