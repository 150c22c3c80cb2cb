// RFC 6570 URI templates, as far as MCP resource templates use them: `{var}`, `{+var}`, `{#var}`,
// `{/var}`, `{.var}`, `{;var}`, `{?a,b}`, `{&a}`; `:N` prefixes and `*` explode modifiers are
// accepted and ignored for naming, applied for prefixes. Hand-written (about 50 lines): the npm
// packages expand but do not list a template's variables, which the form needs.

const EXPRESSION = /\{([+#./;?&]?)([^}]*)\}/g;

interface VarSpec {
  name: string;
  prefix: number | null;
}

function specs(body: string): VarSpec[] {
  return body
    .split(",")
    .map((raw) => raw.trim())
    .filter((raw) => raw !== "")
    .map((raw) => {
      const explode = raw.endsWith("*");
      const [name, prefix] = (explode ? raw.slice(0, -1) : raw).split(":");
      return { name, prefix: prefix !== undefined && /^\d+$/.test(prefix) ? Number(prefix) : null };
    });
}

/** The variable names of `template`, in order, each once. */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(EXPRESSION)) {
    for (const { name } of specs(match[2])) if (!names.includes(name)) names.push(name);
  }
  return names;
}

const unreserved = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const reservedAllowed = (text: string) => encodeURI(text).replace(/%25([0-9A-Fa-f]{2})/g, "%$1");

/** `template` with `values` substituted (RFC 6570 rules for each operator); unset or empty
 * variables are left out as the RFC says. */
export function expandTemplate(template: string, values: Record<string, string>): string {
  return template.replace(EXPRESSION, (_whole, operator: string, body: string) => {
    const defined = specs(body).filter(({ name }) => values[name] !== undefined && values[name] !== "");
    if (defined.length === 0) return "";
    const encode = operator === "+" || operator === "#" ? reservedAllowed : unreserved;
    const parts = defined.map(({ name, prefix }) => {
      const value = prefix === null ? values[name] : [...values[name]].slice(0, prefix).join("");
      const encoded = encode(value);
      return operator === "?" || operator === "&" || operator === ";" ? `${name}=${encoded}` : encoded;
    });
    const first: Record<string, string> = { "": "", "+": "", "#": "#", ".": ".", "/": "/", ";": ";", "?": "?", "&": "&" };
    const separator: Record<string, string> = { "": ",", "+": ",", "#": ",", ".": ".", "/": "/", ";": ";", "?": "&", "&": "&" };
    return first[operator] + parts.join(separator[operator]);
  });
}
