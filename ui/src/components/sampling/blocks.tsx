import type { SamplingBlock } from "../../wire/SamplingBlock";
import type { SamplingMessage } from "../../wire/SamplingMessage";

/** A message's blocks as a list (the wire allows one block or several). */
export function blocksOf(content: SamplingBlock | SamplingBlock[]): SamplingBlock[] {
  return Array.isArray(content) ? content : [content];
}

/** One block, shown as data: text as text, images as images (base64 from the server, never HTML). */
export function BlockView({ block }: { block: SamplingBlock }) {
  switch (block.type) {
    case "text":
      return <p className="sampling-text">{block.text}</p>;
    case "image":
      return <img className="sampling-image" alt="image from the server" src={`data:${block.mimeType};base64,${block.data}`} />;
    case "audio":
      return <p className="small">[audio, {block.mimeType}]</p>;
    case "tool_use":
      return (
        <div className="sampling-tool-use">
          <span className="badge">calls {block.name}</span>
          <pre>{JSON.stringify(block.input, null, 2)}</pre>
        </div>
      );
    case "tool_result":
      return (
        <div className="sampling-tool-result">
          <span className="badge">{block.isError ? "tool error" : "tool result"} · {block.toolUseId}</span>
          <pre>{block.content.map((c) => (typeof c.text === "string" ? c.text : JSON.stringify(c))).join("\n")}</pre>
        </div>
      );
  }
}

/** A conversation, one message per row with its role. */
export function Messages({ messages }: { messages: SamplingMessage[] }) {
  return (
    <ol className="sampling-messages">
      {messages.map((message, i) => (
        <li key={i} className={`sampling-message ${message.role}`}>
          <span className="eyebrow">{message.role}</span>
          {blocksOf(message.content).map((block, j) => (
            <BlockView key={j} block={block} />
          ))}
        </li>
      ))}
    </ol>
  );
}
