import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { ServerLogDialog } from "./ServerLogDialog";

vi.mock("../ipc", () => ({
  serverLog: vi.fn().mockResolvedValue("started\nserving on stdio\n"),
  errorText: (e: unknown) => String(e),
}));

describe("ServerLogDialog", () => {
  it("shows the log, starts on Close, keeps Tab inside and closes on Escape", async () => {
    const user = userEvent.setup();
    const onClose = vi.fn();
    render(
      <>
        <button type="button">Behind the dialog</button>
        <ServerLogDialog server="demo" onClose={onClose} />
      </>,
    );
    expect(await screen.findByText(/serving on stdio/)).toBeTruthy();
    const close = screen.getByRole("button", { name: "Close the log" });
    await waitFor(() => expect(document.activeElement).toBe(close));
    for (let i = 0; i < 5; i++) {
      await user.tab();
      expect(screen.getByRole("dialog").contains(document.activeElement)).toBe(true);
    }
    await user.keyboard("{Escape}");
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
