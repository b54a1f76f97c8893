// @lockstep/kube-sim: a Kubernetes API emulator for tests, the demo and benchmarks.
export { startKubeSim, type KubeSim, type KubeSimOptions, type KubeSimAdmission } from "./server.js";
export { type AdmissionCall, type AdmissionOptions } from "./admission.js";
export { evaluateMatchConditions, type MatchCondition, type ConditionsResult } from "./match-conditions.js";
export { type ServiceReference, type ValidatingWebhook } from "./webhook-config.js";
export { Store, type Entry, type ListQuery, type ListResult, type DeleteOptions, type Watcher, type EventType } from "./store.js";
export { Faults, parseFaultSpec, parseDuration, mergeFaults, type FaultConfig, type ErrorRule } from "./faults.js";
export { kubeconfigYaml, kubeConfigFor, kubeConfigOptions, writeKubeconfig } from "./kubeconfig.js";
export { generateServingTls, subjectAltNames, type ServingTls } from "./tls.js";
export { crdsDir, lockstepCrdsDir, openshiftCrdsDir, medik8sCrdsDir, medik8sCrdManifests, crdManifests, installCrdSet, type CrdSet } from "./openshift.js";
export { parseObjects, dumpList } from "./load.js";
export { KubeError, type StatusBody } from "./errors.js";
export { computePdbStatus } from "./disruption.js";
export { resourceType, type KubeObject, type ResourceType } from "./types.js";
export { bootstrapPolicy, type AuthorizationMode } from "./authz.js";
export { ADMIN_USERNAME, API_AUDIENCES, SERVICE_ACCOUNT_ISSUER, parseTokenAuthFile, type StaticUser, type ServiceAccountClaims } from "./authn.js";
export {
  authorize,
  sourceFromObjects,
  serviceAccountUsername,
  type AccessRequest,
  type Decision,
  type NonResourceAttributes,
  type PolicyRule,
  type RbacSource,
  type ResourceAttributes,
  type Subject,
  type UserInfo,
} from "./rbac.js";
