// Which of two Kubernetes resourceVersions is newer. They are opaque strings to clients, but every
// real API server (etcd's revision) and kube-sim make them decimal integers that grow with each
// write: compared as BigInt when both are; otherwise nothing is claimed.

/** True only when both are decimal integers and `a` is greater than `b`. */
export function isNewerResourceVersion(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined || !DECIMAL.test(a) || !DECIMAL.test(b)) return false;
  return BigInt(a) > BigInt(b);
}

const DECIMAL = /^\d{1,40}$/;
