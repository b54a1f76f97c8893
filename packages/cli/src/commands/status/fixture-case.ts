// Offline input: one golden fixture set `<dir>/<case>-{cv,co,mcp,mc,node}.yaml` (plus the optional
// `-mco-deployment.yaml` and `-alerts.json`), the file layout of oc's status examples.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type StatusInputs, inputsFromDocuments } from "@lockstep/insights";
import { parse } from "yaml";

export class FixtureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FixtureError";
  }
}

export interface FixtureCase {
  inputs: StatusInputs;
  /** Notices for the operator (stderr), never part of the rendered status. */
  notices: string[];
}

export function loadFixtureCase(dir: string, name: string): FixtureCase {
  const notices: string[] = [];
  const path = (suffix: string): string => join(dir, `${name}${suffix}`);
  const readYaml = (suffix: string): unknown => {
    const file = path(suffix);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      throw new FixtureError(`cannot read ${name}${suffix} in ${dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    try {
      return parse(text) as unknown;
    } catch (err) {
      throw new FixtureError(`cannot parse ${name}${suffix}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const optionalYaml = (suffix: string): unknown => (existsSync(path(suffix)) ? readYaml(suffix) : undefined);

  let alerts: unknown;
  if (existsSync(path("-alerts.json"))) {
    try {
      alerts = JSON.parse(readFileSync(path("-alerts.json"), "utf8")) as unknown;
    } catch (err) {
      // Unparsable alerts count as "no alerts" (spec §11.9); say so on stderr only.
      notices.push(`Ignoring alerts in 'Update Health'. Error unmarshaling alerts: ${err instanceof Error ? err.message : String(err)}`);
      alerts = {};
    }
  }

  const inputs = inputsFromDocuments({
    clusterVersion: readYaml("-cv.yaml"),
    clusterOperators: readYaml("-co.yaml"),
    machineConfigPools: readYaml("-mcp.yaml"),
    machineConfigs: readYaml("-mc.yaml"),
    nodes: readYaml("-node.yaml"),
    mcoDeployment: optionalYaml("-mco-deployment.yaml"),
    alerts,
  });
  return { inputs, notices };
}
