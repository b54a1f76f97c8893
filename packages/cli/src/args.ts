// Argument parsers shared by the commands: a bad value is a usage error (exit 2) that says what is
// wrong with it, before anything is called.
import { parseOcpVersion, VersionParseError } from "@lockstep/versions";
import { InvalidArgumentError } from "commander";

/** An OpenShift version (4.16.3, 4.17.0-rc.1); "4.x" or "v4.16" is refused with the reason. */
export function versionArg(value: string): string {
  try {
    parseOcpVersion(value);
    return value;
  } catch (err) {
    if (err instanceof VersionParseError) throw new InvalidArgumentError(`${err.message} (e.g. 4.16.3)`);
    throw err;
  }
}
