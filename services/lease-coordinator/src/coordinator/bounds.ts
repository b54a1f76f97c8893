// Upper bounds of every string a LeaseService request carries. A Lease is a small object read by
// every consumer of the state plane, so a request's text is bounded before anything is decided or
// written: a 120 KB "reason" would otherwise be stored, watched and published as it is.

export const LIMITS = {
  /** A node name is a DNS subdomain. */
  node: 253,
  /** Room for a service-account user name ("system:serviceaccount:<ns>:<name>") and a suffix. */
  holder: 512,
  reason: 1024,
  pool: 253,
  targetVersion: 128,
} as const;

export type BoundedField = keyof typeof LIMITS;

/** Every field that is too long or holds control characters, as messages naming the field. */
export function boundsErrors(fields: Partial<Record<BoundedField, string>>): string[] {
  const errors: string[] = [];
  for (const [name, value] of Object.entries(fields) as Array<[BoundedField, string | undefined]>) {
    if (value === undefined) continue;
    const limit = LIMITS[name];
    if (value.length > limit) errors.push(`${name} is ${value.length} characters long; at most ${limit} are allowed`);
    // Reasons are shown in terminals and events; control characters there are a spoofing tool.
    else if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(value)) errors.push(`${name} contains control characters`);
  }
  return errors;
}
