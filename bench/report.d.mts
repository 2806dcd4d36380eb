// Types of bench/report.mjs for its test (bench/report.test.ts).

/** bench/results/latest.md from a latest.json document (and the hand-written analysis, when given). */
export function report(r: unknown, analysis?: string | null): string
