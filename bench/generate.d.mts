// Types of bench/generate.mjs for the tests that build a large workspace with it (internal/mcp/budget.test.ts).

export function ulidAt(ms: number): string

export interface GeneratedTask {
  readonly id: string
  readonly project: string
  readonly seq: number
}

/** A workspace written straight from the file format, in a new git repository at `root`. */
export function generate(
  root: string,
  size: { projects: number; tasksPerProject: number; notes: number; events: number; githubRepo?: string },
): { ids: GeneratedTask[] }
