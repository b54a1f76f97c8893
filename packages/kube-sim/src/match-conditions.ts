// A webhook's matchConditions (CEL), evaluated as kube-apiserver does before calling it
// (k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions/matcher.go): any condition false
// → the webhook is skipped; every condition true → it is called; an evaluation error (and none
// false) → under failurePolicy Fail the request is refused (403, naming the condition), under Ignore
// the webhook is skipped. Variables: object, oldObject (null where the operation has none), request
// (the AdmissionReview's request) and namespaceObject. `authorizer` is not offered: an expression
// that uses it fails to evaluate, which the failure policy then decides. The CEL is @bufbuild/cel.
import { isCelError, parse, run, type CelInput } from "@bufbuild/cel";

export interface MatchCondition {
  name: string;
  expression: string;
}

export interface ConditionVariables {
  object: unknown;
  oldObject: unknown;
  request: unknown;
  namespaceObject?: unknown;
}

export type ConditionsResult = { call: true } | { call: false } | { error: string };

/** JSON as CEL sees it: objects as maps, whole numbers as int, the rest as is. */
export function celValue(v: unknown): CelInput {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return v.map(celValue);
  if (typeof v === "object") return new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, celValue(x)]));
  if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
  return v as CelInput;
}

/** The parse error of an expression, or undefined when it compiles (for the configuration's validation). */
export function compileError(expression: string): string | undefined {
  try {
    parse(expression);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export function evaluateMatchConditions(conditions: readonly MatchCondition[], vars: ConditionVariables, failurePolicy: "Fail" | "Ignore"): ConditionsResult {
  if (conditions.length === 0) return { call: true };
  const bindings = {
    object: celValue(vars.object),
    oldObject: celValue(vars.oldObject),
    request: celValue(vars.request),
    namespaceObject: celValue(vars.namespaceObject),
  };
  const errors: string[] = [];
  for (const c of conditions) {
    let result: unknown;
    try {
      result = run(c.expression, bindings);
    } catch (err) {
      result = err;
    }
    if (result === false) return { call: false };
    if (result === true) continue;
    const why = isCelError(result) || result instanceof Error ? (result as Error).message : `must evaluate to bool, got ${typeof result}`;
    errors.push(`expression '${c.name}' resulted in error: ${why}`);
  }
  if (errors.length === 0) return { call: true };
  return failurePolicy === "Fail" ? { error: errors.join(", ") } : { call: false };
}
