// metal3-io/baremetal-operator's BareMetalHost CRD, reduced to what the lease webhook's tests need
// (spec.online, spec.consumerRef are read as preserved unknown fields); kube-sim does not ship it.
export const BARE_METAL_HOST_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "baremetalhosts.metal3.io" },
  spec: {
    group: "metal3.io",
    scope: "Namespaced",
    names: { plural: "baremetalhosts", singular: "baremetalhost", kind: "BareMetalHost", listKind: "BareMetalHostList", shortNames: ["bmh"] },
    versions: [{ name: "v1alpha1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } }, subresources: { status: {} } }],
  },
};
