// Fatal errors of spec §3.3, with upstream's exact messages.

export type StatusErrorCode = "NoClusterVersion" | "NoClusterOperators" | "NoProgressing" | "InvalidDetails";

export class StatusError extends Error {
  constructor(
    readonly code: StatusErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "StatusError";
  }
}

export const noClusterVersion = (): StatusError =>
  new StatusError(
    "NoClusterVersion",
    "no cluster version information available - you must be connected to an OpenShift version 4 server to fetch the current version",
  );

export const noClusterOperators = (): StatusError =>
  new StatusError(
    "NoClusterOperators",
    "no cluster operator information available - you must be connected to an OpenShift version 4 server",
  );

export const noProgressing = (): StatusError =>
  new StatusError("NoProgressing", "no current Progressing info, see `oc describe clusterversion` for more details.\n");

export const invalidDetails = (value: string): StatusError =>
  new StatusError(
    "InvalidDetails",
    `invalid value for --details: ${value} (must be one of none, all, nodes, health, operators)`,
  );
