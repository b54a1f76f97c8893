// Server-owned metadata rules (kube-api.md §3): names, timestamps, generateName.
import { fieldInvalid, fieldRequired, type FieldError } from "./errors.js";

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function validateName(name: string | undefined, rule: "subdomain" | "label" | "path", field = "metadata.name"): FieldError[] {
  if (!name) return [fieldRequired(field, "name or generateName is required")];
  if (rule === "path") {
    // path.IsValidPathSegmentName (RBAC names such as "system:discovery").
    if (name === "." || name === "..") return [fieldInvalid(field, name, `may not be '${name}'`)];
    for (const bad of ["/", "%"]) if (name.includes(bad)) return [fieldInvalid(field, name, `may not contain '${bad}'`)];
    return [];
  }
  if (rule === "label") {
    if (name.length > 63) return [fieldInvalid(field, name, "must be no more than 63 characters")];
    if (!LABEL.test(name))
      return [
        fieldInvalid(
          field,
          name,
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ),
      ];
    return [];
  }
  if (name.length > 253) return [fieldInvalid(field, name, "must be no more than 253 characters")];
  if (!SUBDOMAIN.test(name))
    return [
      fieldInvalid(
        field,
        name,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ),
    ];
  return [];
}

/** RFC 3339 at seconds precision, as metav1.Time serialises. */
export function timestamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

const NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";
export function randomSuffix(rng: () => number): string {
  let s = "";
  for (let i = 0; i < 5; i++) s += NAME_CHARS[Math.floor(rng() * NAME_CHARS.length)];
  return s;
}
