// Test data: a `coreos-bootimages` stream document shaped like the payload's (values invented).

export const STREAM_RELEASE = "9.6.20260210-0";

export function streamDocument() {
  return {
    stream: "rhcos-9.6",
    metadata: { "last-modified": "2026-02-11T08:00:00Z", generator: "plume cosa2stream 0.1.0+unknown" },
    architectures: {
      x86_64: {
        artifacts: {
          aws: { release: STREAM_RELEASE, formats: { "vmdk.gz": { disk: { location: "https://rhcos.mirror.example/aws.x86_64.vmdk.gz", sha256: "aa11" } } } },
          azure: { release: STREAM_RELEASE, formats: { "vhd.gz": { disk: { location: "https://rhcos.mirror.example/azure.x86_64.vhd.gz", sha256: "bb22" } } } },
          gcp: { release: STREAM_RELEASE, formats: { "tar.gz": { disk: { location: "https://rhcos.mirror.example/gcp.x86_64.tar.gz", sha256: "cc33" } } } },
          vmware: {
            release: STREAM_RELEASE,
            formats: { ova: { disk: { location: "https://rhcos.mirror.example/rhcos-9.6.20260210-0-vmware.x86_64.ova", sha256: "0f0f0f0f1e1e1e1e" } } },
          },
        },
        images: {
          aws: {
            regions: {
              "us-east-1": { release: STREAM_RELEASE, image: "ami-0e0a1b2c3d4e5f601" },
              "eu-west-1": { release: STREAM_RELEASE, image: "ami-0e0a1b2c3d4e5f602" },
            },
          },
          gcp: { release: STREAM_RELEASE, project: "rhcos-cloud", name: "rhcos-9-6-20260210-0-gcp-x86-64", family: "rhcos-9-6" },
          ibmcloud: { regions: { "us-east": { release: STREAM_RELEASE, object: "rhcos.qcow2.gz", bucket: "rhcos-us-east", url: "https://example" } } },
        },
        "rhel-coreos-extensions": {
          "aws-winli": { regions: { "us-east-1": { release: STREAM_RELEASE, image: "ami-0winli" } } },
          "azure-disk": { release: STREAM_RELEASE, url: "https://rhcos.blob.example/rhcos.vhd" },
          marketplace: {
            azure: {
              "no-purchase-plan": {
                hyperVGen1: { publisher: "azureopenshift", offer: "aro4", sku: "aro_96", version: "9.6.20260210" },
                hyperVGen2: { publisher: "azureopenshift", offer: "aro4", sku: "96-v2", version: "9.6.20260210" },
              },
              ocp: {
                hyperVGen1: { publisher: "redhat", offer: "rh-ocp-worker", sku: "rh-ocp-worker-gen1", version: "9.6.2026021000" },
                hyperVGen2: { publisher: "redhat", offer: "rh-ocp-worker", sku: "rh-ocp-worker", version: "9.6.2026021000" },
              },
              "ocp-emea": {
                hyperVGen2: { publisher: "redhat-limited", offer: "rh-ocp-worker", sku: "rh-ocp-worker", version: "9.6.2026021000" },
              },
            },
          },
        },
      },
      aarch64: {
        artifacts: { aws: { release: STREAM_RELEASE, formats: {} } },
        images: { aws: { regions: { "us-east-1": { release: STREAM_RELEASE, image: "ami-0a0a1b2c3d4e5f603" } } } },
        "rhel-coreos-extensions": {
          marketplace: {
            azure: {
              "no-purchase-plan": {
                hyperVGen2: { publisher: "azureopenshift", offer: "aro4", sku: "96-arm64-v2", version: "9.6.20260210" },
              },
            },
          },
        },
      },
      s390x: { artifacts: { metal: { release: STREAM_RELEASE, formats: {} } }, images: {} },
    },
  };
}

export const STREAM_JSON = JSON.stringify(streamDocument());
