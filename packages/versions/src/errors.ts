// One error type for every parse failure, so callers can tell bad input from bugs.
export class VersionParseError extends Error {
  override readonly name = "VersionParseError";
  constructor(
    readonly kind: "OCP" | "RHCOS" | "RHEL",
    readonly input: string,
    readonly problem: string,
  ) {
    super(`invalid ${kind} version ${JSON.stringify(input)}: ${problem}`);
  }
}

/** Result of a non-throwing parse. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: VersionParseError };

export function attempt<T>(parse: () => T): ParseResult<T> {
  try {
    return { ok: true, value: parse() };
  } catch (err) {
    if (err instanceof VersionParseError) return { ok: false, error: err };
    throw err;
  }
}
