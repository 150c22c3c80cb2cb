import type { SamplingBlock } from "../../wire/SamplingBlock";
import type { SamplingContent } from "../../wire/SamplingContent";
import type { SamplingMessage } from "../../wire/SamplingMessage";

/** A message's blocks as a list (the wire allows one block or several). */
export function blocksOf(content: SamplingContent): SamplingBlock[] {
  return Array.isArray(content) ? content : [content];
}

/**
 * A `data:` URL for an image block, or `null` when the MIME type is not an image type or the data
 * is not base64: the server's bytes only ever reach an `<img>`, never markup.
 */
export function imageUrl(mimeType: string, data: string): string | null {
  const bytes = data.replace(/\s+/g, "");
  if (!/^image\/[a-z0-9.+-]+$/i.test(mimeType) || !/^[A-Za-z0-9+/]*={0,2}$/.test(bytes)) return null;
  return `data:${mimeType.toLowerCase()};base64,${bytes}`;
}

/** A tool result's MCP content blocks as text: text as is, anything else named. */
export function toolResultText(content: Array<Record<string, unknown>>): string {
  return content
    .map((c) => (c.type === "text" && typeof c.text === "string" ? c.text : typeof c.type === "string" ? `[${c.type}${typeof c.mimeType === "string" ? `, ${c.mimeType}` : ""}]` : JSON.stringify(c)))
    .join("\n");
}

/** One block, shown as data: text as text, images as images (base64 from the server, never HTML). */
export function BlockView({ block }: { block: SamplingBlock }) {
  switch (block.type) {
    case "text":
      return <p className="sampling-text">{block.text}</p>;
    case "image": {
      const src = imageUrl(block.mimeType, block.data);
      return src ? (
        <img className="sampling-image" alt={`image from the server (${block.mimeType})`} src={src} />
      ) : (
        <p className="small muted">[image not shown: {block.mimeType}]</p>
      );
    }
    case "audio":
      return <p className="small muted">[audio, {block.mimeType}]</p>;
    case "tool_use":
      return (
        <div className="sampling-tool-use">
          <span className="badge sampling-badge">calls {block.name}</span> <code className="small muted">{block.id}</code>
          <pre>{JSON.stringify(block.input, null, 2)}</pre>
        </div>
      );
    case "tool_result":
      return (
        <div className={`sampling-tool-result${block.isError ? " failed" : ""}`}>
          <span className={`badge ${block.isError ? "danger" : "sampling-badge"}`}>
            {block.isError ? "tool error" : "tool result"} · {block.toolUseId}
          </span>
          <pre>{toolResultText(block.content)}</pre>
          {block.structuredContent !== undefined ? <pre>{JSON.stringify(block.structuredContent, null, 2)}</pre> : null}
        </div>
      );
  }
}

/** A conversation, one message per row with its role; `labels` names rows (e.g. "ack"). */
export function Messages({ messages, labels }: { messages: SamplingMessage[]; labels?: string[] }) {
  return (
    <ol className="sampling-messages">
      {messages.map((message, i) => (
        <li key={i} className={`sampling-message ${message.role}`}>
          <span className="eyebrow">
            {message.role}
            {labels?.[i] ? ` · ${labels[i]}` : ""}
          </span>
          {blocksOf(message.content).map((block, j) => (
            <BlockView key={j} block={block} />
          ))}
        </li>
      ))}
    </ol>
  );
}
