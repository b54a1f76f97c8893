// Types for build.mjs (imported by the image test, test/image/).
export interface ImageBuild {
  archive: string;
  sbom: string;
  chart: string;
  reference: string;
  manifestDigest: string;
  configDigest: string;
  layers: Array<{ digest: string; size: number; what: string }>;
  compressedBytes: number;
  archiveBytes: number;
  revision: string;
  sourceDateEpoch: number;
  seconds: number;
}
export declare class ImageBuildError extends Error {}
export declare function buildImage(options?: { out?: string; log?: (message: string) => void }): ImageBuild;
export declare function cacheDir(): string;
export declare const IMAGE_REPOSITORY: string;
export declare const SERVICES: string[];
