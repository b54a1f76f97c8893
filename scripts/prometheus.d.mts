// Types for prometheus.mjs (imported by the chart's alert-rule test and the e2e test with Prometheus).
export declare const PACKAGE: string;
export declare const prometheusDir: string;
export declare function ensurePrometheus(opts?: { log?: (message: string) => void }): { prometheus: string; promtool: string };
