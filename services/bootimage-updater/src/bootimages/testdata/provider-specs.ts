// Test data: providerSpecs as the OpenShift installer writes them into worker MachineSets
// (machine.openshift.io/v1beta1), one per platform. Identifiers are invented.

export const INFRA_ID = "prod-east-x7k2p";

export function awsProviderSpec(amiId = "ami-0c5d3e3b4f3d1c7e2") {
  return {
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "AWSMachineProviderConfig",
    ami: { id: amiId },
    blockDevices: [{ ebs: { encrypted: true, iops: 0, kmsKey: { arn: "" }, volumeSize: 120, volumeType: "gp3" } }],
    credentialsSecret: { name: "aws-cloud-credentials" },
    deviceIndex: 0,
    iamInstanceProfile: { id: `${INFRA_ID}-worker-profile` },
    instanceType: "m6i.xlarge",
    metadata: { creationTimestamp: null },
    metadataServiceOptions: {},
    placement: { availabilityZone: "us-east-1a", region: "us-east-1" },
    securityGroups: [
      { filters: [{ name: "tag:Name", values: [`${INFRA_ID}-node`] }] },
      { filters: [{ name: "tag:Name", values: [`${INFRA_ID}-lb`] }] },
    ],
    subnet: { filters: [{ name: "tag:Name", values: [`${INFRA_ID}-subnet-private-us-east-1a`] }] },
    tags: [{ name: `kubernetes.io/cluster/${INFRA_ID}`, value: "owned" }],
    userDataSecret: { name: "worker-user-data" },
  };
}

export function gcpProviderSpec(image = "projects/rhcos-cloud/global/images/rhcos-418-94-202410090804-0-gcp-x86-64") {
  return {
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "GCPMachineProviderSpec",
    canIPForward: false,
    credentialsSecret: { name: "gcp-cloud-credentials" },
    deletionProtection: false,
    disks: [{ autoDelete: true, boot: true, image, labels: null, sizeGb: 128, type: "pd-ssd" }],
    machineType: "n2-standard-4",
    metadata: { creationTimestamp: null },
    networkInterfaces: [{ network: `${INFRA_ID}-network`, subnetwork: `${INFRA_ID}-worker-subnet` }],
    projectID: "openshift-prod-4471",
    region: "us-central1",
    serviceAccounts: [
      { email: `${INFRA_ID}-w@openshift-prod-4471.iam.gserviceaccount.com`, scopes: ["https://www.googleapis.com/auth/cloud-platform"] },
    ],
    shieldedInstanceConfig: {},
    tags: [`${INFRA_ID}-worker`],
    userDataSecret: { name: "worker-user-data" },
    zone: "us-central1-a",
  };
}

export type AzureImage = { publisher: string; offer: string; sku: string; version: string; resourceID: string; type?: string };

/** Image of an installer-provisioned cluster before marketplace images: the gallery image it uploaded. */
export const AZURE_GALLERY_GEN2: AzureImage = {
  offer: "",
  publisher: "",
  resourceID: `/resourceGroups/${INFRA_ID}-rg/providers/Microsoft.Compute/galleries/gallery_${INFRA_ID.replaceAll("-", "_")}/images/${INFRA_ID}-gen2/versions/latest`,
  sku: "",
  version: "",
};

export function azureProviderSpec(image: AzureImage = AZURE_GALLERY_GEN2, securityType?: string) {
  return {
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "AzureMachineProviderSpec",
    acceleratedNetworking: true,
    credentialsSecret: { name: "azure-cloud-credentials", namespace: "openshift-machine-api" },
    diagnostics: {},
    image,
    location: "eastus",
    managedIdentity: `${INFRA_ID}-identity`,
    metadata: { creationTimestamp: null },
    networkResourceGroup: `${INFRA_ID}-rg`,
    osDisk: {
      diskSettings: {},
      diskSizeGB: 128,
      managedDisk: { securityProfile: { diskEncryptionSet: {} }, storageAccountType: "Premium_LRS" },
      osType: "Linux",
    },
    publicIP: false,
    publicLoadBalancer: INFRA_ID,
    resourceGroup: `${INFRA_ID}-rg`,
    securityProfile: { settings: securityType === undefined ? {} : { securityType } },
    subnet: `${INFRA_ID}-worker-subnet`,
    userDataSecret: { name: "worker-user-data" },
    vmSize: "Standard_D4s_v3",
    vnet: `${INFRA_ID}-vnet`,
    zone: "1",
  };
}

export const VSPHERE_WORKSPACE = {
  datacenter: "dc1",
  datastore: "/dc1/datastore/vsanDatastore",
  folder: `/dc1/vm/${INFRA_ID}`,
  resourcePool: "/dc1/host/cluster1//Resources",
  server: "vcenter.example.com",
};

export function vsphereProviderSpec(template = `${INFRA_ID}-rhcos-generated-region-generated-zone`, workspace = VSPHERE_WORKSPACE) {
  return {
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "VSphereMachineProviderSpec",
    credentialsSecret: { name: "vsphere-cloud-credentials" },
    diskGiB: 120,
    memoryMiB: 16384,
    metadata: { creationTimestamp: null },
    network: { devices: [{ networkName: "VM Network" }] },
    numCPUs: 4,
    numCoresPerSocket: 4,
    snapshot: "",
    template,
    userDataSecret: { name: "worker-user-data" },
    workspace,
  };
}
