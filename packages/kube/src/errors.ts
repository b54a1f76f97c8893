// Classifying API errors without loading client-node: its ApiException and this package's
// KubeApiError both carry the HTTP status as `code` and the Status body as `body`.

/** A non-2xx answer of the API server; `body` is the response text (a Status object, usually). */
export class KubeApiError extends Error {
  override name = "KubeApiError";
  constructor(
    readonly code: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what}: HTTP ${code}${reasonOf(body) ? ` (${reasonOf(body)})` : ""}`);
  }
}

function reasonOf(body: unknown): string | undefined {
  try {
    const b = typeof body === "string" ? JSON.parse(body) : body;
    return typeof b?.reason === "string" ? b.reason : undefined;
  } catch {
    return undefined;
  }
}

/** HTTP status of an API error (KubeApiError, client-node's ApiException, or a watch error), or undefined. */
export function statusCode(err: unknown): number | undefined {
  const e = err as { statusCode?: number; code?: unknown };
  if (typeof e?.statusCode === "number") return e.statusCode;
  if (typeof e?.code === "number") return e.code;
  return undefined;
}

/** The `reason` of a Kubernetes Status error body (kept as a JSON string by both error classes). */
export function statusReason(err: unknown): string | undefined {
  if (typeof (err as { code?: unknown })?.code !== "number" || !(err && typeof err === "object" && "body" in err)) return undefined;
  return reasonOf((err as { body: unknown }).body);
}

export const isConflict = (err: unknown) => statusCode(err) === 409;
export const isNotFound = (err: unknown) => statusCode(err) === 404;
export const isGone = (err: unknown) => statusCode(err) === 410;
export const isAlreadyExists = (err: unknown) => statusCode(err) === 409 && statusReason(err) === "AlreadyExists";
