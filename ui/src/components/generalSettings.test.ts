import { describe, expect, it } from "vitest";
import { gibToBytes } from "./GeneralSettings";

describe("gibToBytes", () => {
  it("turns GiB into bytes and leaves anything else for Rust to refuse", () => {
    expect(gibToBytes("2")).toBe(String(2 * 1024 ** 3));
    expect(gibToBytes(" 0.5 ")).toBe(String(1024 ** 3 / 2));
    expect(gibToBytes("0")).toBe("0");
    expect(gibToBytes("lots")).toBe("lots");
    expect(gibToBytes("-1")).toBe("-1");
    expect(gibToBytes("")).toBe("");
  });
});
