// Error text for logs and refusals: the API server's own message when it sent one.
/** The API server's Status message of a refused request (what kubectl prints), if the error has one. */
export function apiMessage(err: unknown): string | undefined {
  const body = (err as { body?: unknown })?.body;
  if (typeof body !== "string") return undefined;
  try {
    const m = (JSON.parse(body) as { message?: unknown }).message;
    return typeof m === "string" && m ? m : undefined;
  } catch {
    return undefined;
  }
}

/** First line of an error (client-node puts whole response bodies in messages); an API error's Status message when there is one. */
export const errText = (err: unknown) => {
  const api = apiMessage(err);
  const code = (err as { code?: unknown })?.code;
  const text = api !== undefined ? `${typeof code === "number" ? `HTTP ${code}: ` : ""}${api}` : String((err as Error)?.message ?? err);
  return text.split("\n")[0]!.slice(0, 500);
};
