import { describe, expect, it } from "vitest";
import { parseWebhookService } from "./kube-sim.js";

describe("kube-sim serve --webhook-service", () => {
  it("maps a service (optionally with its port) to a loopback URL", () => {
    expect(parseWebhookService("lockstep/lease-coordinator=https://127.0.0.1:9443")).toEqual(["lockstep/lease-coordinator", "https://127.0.0.1:9443"]);
    expect(parseWebhookService("lockstep/lease-coordinator:8443=https://localhost:9443/")).toEqual(["lockstep/lease-coordinator:8443", "https://localhost:9443/"]);
  });

  it("names the spec it refuses", () => {
    for (const bad of ["lockstep/x", "x=https://127.0.0.1:1", "lockstep/x=http://127.0.0.1:1", "lockstep/x=https://127.0.0.1:1/path"])
      expect(() => parseWebhookService(bad)).toThrow(`invalid --webhook-service "${bad}"`);
  });
});
