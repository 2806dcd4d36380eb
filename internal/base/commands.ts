// Command lines as dacli prints them in hints and next actions. Rooms below the slices never spell one as text:
// they name the command through cmd(), and the architecture test holds every cmd() to the command table
// (ARCHITECTURE.md, rule "command text"), so a renamed command cannot leave a stale hint behind.

import { BINARY_NAME } from './version.js'

/** `dacli <line>`: `line` starts with a command path of the table, then its arguments as they are to be shown. */
export function cmd(line: string): string {
  return `${BINARY_NAME} ${line}`
}

/** One word of a command line as a POSIX shell reads it back: as it is when plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`
}
