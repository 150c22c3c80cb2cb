import { describe, expect, it } from "vitest";
import { ARTIFACT_DRAG_TYPE, droppedArtifactId, isArtifactDrag, startArtifactDrag } from "./drag";

/** The part of a DataTransfer the helpers use (Node has none). */
function transfer() {
  const data = new Map<string, string>();
  return {
    effectAllowed: "all",
    get types() {
      return [...data.keys()];
    },
    setData: (type: string, value: string) => void data.set(type, value),
    getData: (type: string) => data.get(type) ?? "",
  };
}

describe("dragging a stored file", () => {
  it("carries its id for file fields and its reference as text", () => {
    const dataTransfer = transfer();
    startArtifactDrag({ dataTransfer: dataTransfer as unknown as DataTransfer }, "demo_1f0c2b7e9a41");
    expect(dataTransfer.getData(ARTIFACT_DRAG_TYPE)).toBe("demo_1f0c2b7e9a41");
    expect(dataTransfer.getData("text/plain")).toBe("artifact:demo_1f0c2b7e9a41");
    expect(dataTransfer.effectAllowed).toBe("copy");
    expect(isArtifactDrag(dataTransfer)).toBe(true);
    expect(droppedArtifactId(dataTransfer)).toBe("demo_1f0c2b7e9a41");
  });
  it("anything else is not a stored file", () => {
    const dataTransfer = transfer();
    dataTransfer.setData("text/plain", "artifact:demo_1f0c2b7e9a41");
    expect(isArtifactDrag(dataTransfer)).toBe(false);
    expect(droppedArtifactId(dataTransfer)).toBeNull();
    expect(isArtifactDrag(null)).toBe(false);
  });
});
