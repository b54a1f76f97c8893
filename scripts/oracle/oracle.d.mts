// Types for oracle.mjs (imported by the whole-system oracle test, test/oracle/).
export interface OracleUser {
  token: string;
  name: string;
  uid?: string;
  groups?: string[];
}
export interface Oracle {
  url: string;
  token: string;
  /** The server's CA (PEM). */
  ca: string;
  caFile: string;
  kubeconfig: string;
  dir: string;
  version: string;
  startSeconds: number;
  pids: number[];
  stop(): Promise<void>;
}
export declare class OracleBuildError extends Error {}
export declare function buildOracle(): { apiserver: string; etcd: string; version: string; cached: boolean };
export declare function startOracle(options?: { users?: OracleUser[]; apiserverArgs?: string[]; detached?: boolean }): Promise<Oracle>;
export declare function stopDetached(dir: string): Promise<void>;
export declare function freePort(): Promise<number>;
