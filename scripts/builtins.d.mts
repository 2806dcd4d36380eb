// Types for the parts of builtins.mjs the tests call (internal/cli/startup.test.ts).

/** The ES module text of the stand-in for built-in `name` (`node:crypto`). */
export function standIn(name: string): string

/** The esbuild plugin that gives static imports of node:crypto the stand-in. */
export function lazyBuiltins(): { name: string; setup(build: unknown): void }
