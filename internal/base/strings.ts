// Strings that outlive the text they were cut from.

/**
 * `s` as a string of its own. V8 makes a substring of 13 characters or more a view into the whole string it was
 * cut from, which then stays alive as long as the substring does: a title cut from a task file kept the file's
 * whole text alive. On a cold listing of 10,000 tasks that was every file's text (4.7 MB) carried to the end of
 * the command and copied by every collection on the way. A concatenation read back by `slice` is flattened into
 * a new string first, so the result holds only its own characters (and one more).
 */
export function detached(s: string): string {
  return s.length < 13 ? s : ` ${s}`.slice(1)
}
