import { ApiException } from "@kubernetes/client-node";

/** HTTP status of a client-node error (ApiException or a watch error), or undefined. */
export function statusCode(err: unknown): number | undefined {
  if (err instanceof ApiException) return err.code;
  const e = err as { statusCode?: number; code?: unknown };
  if (typeof e?.statusCode === "number") return e.statusCode;
  if (typeof e?.code === "number") return e.code;
  return undefined;
}

/** The `reason` of a Kubernetes Status error body (client-node keeps the body as a JSON string). */
export function statusReason(err: unknown): string | undefined {
  if (!(err instanceof ApiException)) return undefined;
  try {
    const body = typeof err.body === "string" ? JSON.parse(err.body) : err.body;
    return body?.reason;
  } catch {
    return undefined;
  }
}

export const isConflict = (err: unknown) => statusCode(err) === 409;
export const isNotFound = (err: unknown) => statusCode(err) === 404;
export const isGone = (err: unknown) => statusCode(err) === 410;
export const isAlreadyExists = (err: unknown) => statusCode(err) === 409 && statusReason(err) === "AlreadyExists";
