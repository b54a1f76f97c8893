// ListNodeInsights page tokens: opaque to clients, bound to the filter they were issued for, so a
// token reused with another filter is a clear INVALID_ARGUMENT instead of a wrong page. Pure.

export interface PageCursor {
  /** Last node name of the previous page; the next page starts after it (stable under churn). */
  after: string;
  pool: string;
  assessment: string;
}

export class PageTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PageTokenError";
  }
}

export function encodePageToken(c: PageCursor): string {
  return Buffer.from(JSON.stringify([1, c.after, c.pool, c.assessment]), "utf8").toString("base64url");
}

export function decodePageToken(token: string, filter: { pool: string; assessment: string }): PageCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw new PageTokenError("page_token is not a token this service issued");
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || parsed[0] !== 1 || !parsed.slice(1).every((x) => typeof x === "string")) {
    throw new PageTokenError("page_token is not a token this service issued");
  }
  const [, after, pool, assessment] = parsed as [number, string, string, string];
  if (pool !== filter.pool || assessment !== filter.assessment) {
    throw new PageTokenError("page_token was issued for a different pool or assessment filter");
  }
  return { after, pool, assessment };
}
