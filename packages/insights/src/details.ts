// Spec §3.3 and §12.2: the --details values and which areas they enable.
import { invalidDetails } from "./errors.js";

export const DETAILS_VALUES = ["none", "all", "nodes", "health", "operators"] as const;
export type Details = (typeof DETAILS_VALUES)[number];
export type DetailArea = "nodes" | "health" | "operators";

export function parseDetails(value: string): Details {
  if ((DETAILS_VALUES as readonly string[]).includes(value)) return value as Details;
  throw invalidDetails(value);
}

export const areaEnabled = (details: Details, area: DetailArea): boolean => details === "all" || details === area;
