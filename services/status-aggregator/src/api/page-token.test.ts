import type { NodeInsight } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { PageTokenError, decodePageToken, encodePageToken } from "./page-token.js";
import { RequestError, pageNodes } from "./update-status-service.js";

const node = (name: string, pool: string, assessment: string) => ({ name, pool, record: { assessment } }) as NodeInsight;
const all = [node("a", "worker", "Completed"), node("b", "infra", "Outdated"), node("c", "worker", "Outdated"), node("d", "worker", "Completed"), node("e", "infra", "Completed")];

describe("page tokens", () => {
  it("round-trip and are bound to their filter", () => {
    const t = encodePageToken({ after: "c", pool: "worker", assessment: "" });
    expect(decodePageToken(t, { pool: "worker", assessment: "" }).after).toBe("c");
    expect(() => decodePageToken(t, { pool: "infra", assessment: "" })).toThrow(PageTokenError);
    expect(() => decodePageToken("garbage!", { pool: "", assessment: "" })).toThrow(/not a token this service issued/);
  });
});

describe("pageNodes", () => {
  it("walks filtered pages to the end and reports no token on the last page", () => {
    const names: string[] = [];
    let token = "";
    let pages = 0;
    do {
      const page = pageNodes(all, { pool: "worker", assessment: "", pageSize: 2, pageToken: token });
      names.push(...page.nodes.map((n) => n.name));
      token = page.nextPageToken;
      pages++;
    } while (token);
    expect(names).toEqual(["a", "c", "d"]);
    expect(pages).toBe(2);
    expect(pageNodes(all, { pool: "", assessment: "Completed", pageSize: 0, pageToken: "" }).nodes.map((n) => n.name)).toEqual(["a", "d", "e"]);
    expect(pageNodes(all, { pool: "worker", assessment: "Outdated", pageSize: 1, pageToken: "" }).nextPageToken).toBe("");
  });

  it("rejects unknown assessments and negative sizes", () => {
    expect(() => pageNodes(all, { pool: "", assessment: "Bogus", pageSize: 0, pageToken: "" })).toThrow(RequestError);
    expect(() => pageNodes(all, { pool: "", assessment: "", pageSize: -1, pageToken: "" })).toThrow(/must not be negative/);
  });
});
