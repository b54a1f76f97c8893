import { describe, expect, it } from "vitest";
import { tabwrite } from "./tabwriter.js";

describe("tabwrite (Go text/tabwriter, padding 3)", () => {
  it("pads every tab-terminated cell to its column and never the last cell", () => {
    expect(tabwrite("A\tBB\tC\nAAAA\tB\tCCCCC\n")).toBe("A      BB   C\nAAAA   B    CCCCC\n");
  });

  it("keeps trailing spaces when the last cell is empty", () => {
    expect(tabwrite("NAME\tEST\tMESSAGE\nn1\t?\t\n")).toBe("NAME   EST   MESSAGE\nn1     ?     \n");
  });

  it("pads an empty middle cell to its full width", () => {
    expect(tabwrite("POOL\tA\tCOMPLETION\tS\nz\tEmpty\t\t0 Total\n")).toBe(
      "POOL   A       COMPLETION   S\nz      Empty                0 Total\n",
    );
  });

  it("a line without tabs ends the column blocks (spec §12.3 illustration)", () => {
    const text =
      "NAME\tASSESSMENT\tPHASE\tVERSION\tEST\tMESSAGE\n" +
      "cp-1\tDegraded\tUpdating\t4.19.0\t?\tfirst line of reason\n" +
      "second line\n" +
      "control-plane-2\tOutdated\tPending\t4.19.0\t?\t\n" +
      "control-plane-3\tOutdated\tPending\t4.19.0\t?\t\n";
    expect(tabwrite(text)).toBe(
      "NAME   ASSESSMENT   PHASE      VERSION   EST   MESSAGE\n" +
        "cp-1   Degraded     Updating   4.19.0    ?     first line of reason\n" +
        "second line\n" +
        "control-plane-2   Outdated   Pending   4.19.0   ?   \n" +
        "control-plane-3   Outdated   Pending   4.19.0   ?   \n",
    );
  });

  it("continuation rows with empty tab-terminated cells stay aligned under the last column", () => {
    expect(tabwrite("N\tS\tMESSAGE\nop\t2m\tline 1\n\t\tline 2\n")).toBe("N    S    MESSAGE\nop   2m   line 1\n          line 2\n");
  });

  it("counts widths in code points", () => {
    expect(tabwrite("\u00b5\u00b5\tx\nab\ty\n")).toBe("\u00b5\u00b5   x\nab   y\n");
  });

  it("emits a leading empty line and an unterminated tail as they are", () => {
    expect(tabwrite("\nA\tB\n")).toBe("\nA   B\n");
    expect(tabwrite("A\tB\ntail")).toBe("A   B\ntail");
  });
});
