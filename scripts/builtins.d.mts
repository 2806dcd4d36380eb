// Types for the parts of builtins.mjs the tests call (internal/cli/startup.test.ts).

/** The ES module text of the stand-in for built-in `name` (`node:crypto`, `node:os` or `node:fs`). */
export function standIn(name: string): string

/** The esbuild plugin that gives static imports of those built-ins their stand-ins. */
export function lazyBuiltins(opts: { root: string }): { name: string; setup(build: unknown): void }
