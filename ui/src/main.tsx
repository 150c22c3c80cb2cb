import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { beginStartup } from "./startup";
import "./styles.css";

// The servers and their tools are asked for now, while React renders the first frame.
beginStartup();

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
