import { describe, expect, it } from "vitest";
import { modeInsights } from "./mode-insight.js";

describe("modeInsights", () => {
  it("says nothing while writing, and why not otherwise", () => {
    expect(modeInsights({ mode: "writing", detail: "" }, ["a"])).toEqual([]);
    const back = modeInsights({ mode: "standing-back", detail: "a not installed by Lockstep" }, ["a"]);
    expect(back).toEqual([expect.objectContaining({ level: "Info", description: "a not installed by Lockstep" })]);
    expect(back[0]!.summary).toContain("stands back");
    expect(modeInsights({ mode: "crds-missing", detail: "d" }, ["a"])[0]).toMatchObject({ level: "Warning", resources: [{ kind: "CustomResourceDefinition", name: "a" }] });
  });
});
