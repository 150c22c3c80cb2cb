// The one Node API the component tests use (src/test/styles.ts); the app itself has no Node types.
declare module "node:fs" {
  export function readFileSync(path: string | URL, encoding: "utf8"): string;
}
