// Builds the starting arguments for a tool from its inputSchema: every property's `default`.
export function defaultArguments(inputSchema: unknown): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  if (!isObject(inputSchema) || !isObject(inputSchema.properties)) return args;
  for (const [name, property] of Object.entries(inputSchema.properties)) {
    if (isObject(property) && "default" in property && property.default !== null) {
      args[name] = property.default;
    }
  }
  return args;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
