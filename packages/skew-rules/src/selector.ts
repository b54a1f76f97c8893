// Kubernetes label selector semantics (shared, in contracts): an empty selector matches everything.
export { labelSelectorIsEmpty as selectorIsEmpty, matchesLabelSelector as selectorMatches } from "@lockstep/contracts";
