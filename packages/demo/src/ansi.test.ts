import { describe, expect, it } from "vitest";
import { fit, pad, plain, style, visibleWidth } from "./ansi.js";

describe("terminal text", () => {
  it("measures visible characters only", () => {
    expect(visibleWidth(`${style.green("✔")} ok → done`)).toBe(11);
    expect(plain(style.bold("x"))).toBe("x");
  });

  it("cuts to the width with an ellipsis, closing an open style", () => {
    expect(fit("abcdef", 6)).toBe("abcdef");
    expect(fit("abcdefg", 6)).toBe("abcde…");
    const cut = fit(`ab${style.dim("cdefgh")}`, 5);
    expect(plain(cut)).toBe("abcd…");
    expect(cut.endsWith("\x1b[0m")).toBe(true);
    expect(visibleWidth(cut)).toBe(5);
    expect(fit("abc", 0)).toBe("");
  });

  it("pads to the width", () => {
    expect(pad("ab", 4)).toBe("ab  ");
    expect(pad("abcdef", 4)).toBe("abc…");
  });
});
