import { describe, expect, it } from "vitest";
import { Agenda } from "./agenda.js";

describe("Agenda", () => {
  it("takes jobs by due time, then in scheduling order; a key holds one job", () => {
    const a = new Agenda();
    const ran: string[] = [];
    a.schedule("x", 20, () => ran.push("x1"));
    a.schedule("y", 10, () => ran.push("y"));
    a.schedule("z", 20, () => ran.push("z"));
    a.schedule("x", 30, () => ran.push("x2"));
    expect(a.peek()).toBe(10);
    for (let j = a.take(); j; j = a.take()) j.run();
    expect(ran).toEqual(["y", "z", "x2"]);
  });

  it("rounds due times up to whole milliseconds", () => {
    const a = new Agenda();
    a.schedule("k", 10.2, () => undefined);
    expect(a.take()!.due).toBe(11);
  });

  it("cancels", () => {
    const a = new Agenda();
    a.schedule("k", 1, () => undefined);
    a.cancel("k");
    expect(a.has("k")).toBe(false);
    expect(a.take()).toBeUndefined();
  });
});
