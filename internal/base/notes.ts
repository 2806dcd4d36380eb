// How long work reports to people: notes and warnings on stderr, and progress. The kernel implements them
// (clikit/io.ts); any layer that runs long work may take them as a parameter.

/** Progress of one piece of long work (pulls, pushes, records of thousands of files, prunes). */
export interface Progress {
  /** `done` of the total so far; `detail` names the current item. */
  update(done: number, detail?: string): void
  /** One more done. */
  tick(detail?: string): void
  /** A line about this work (a wait, a phase) that stays on screen. */
  say(message: string): void
  /** Finished: the bar is cleared and `summary`, when given, stays as a line. */
  end(summary?: string): void
}

/** Warnings, notes and progress for people, on stderr; silenced by --quiet (progress also by --json). */
export interface Notes {
  warn(message: string): void
  /** One warning per object a listing could not read: `skipped <path>: <reason> (see dacli doctor)`. */
  skipped(objects: readonly { path: string; reason: string }[]): void
  note(message: string): void
  /**
   * Progress of long work: a bar redrawn in place on a terminal, a plain line at every tenth otherwise (every 100
   * items when the total is unknown), nothing under --json or --quiet.
   */
  progress(label: string, total: number | null): Progress
}
