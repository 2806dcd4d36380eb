/**
 * Git's rules for a branch name (git check-ref-format --branch), given short: not HEAD or @, not a
 * full ref (refs/…), never an option (-…), no whitespace or control character, none of ~ ^ : ? * [ \,
 * no "..", "//" or "@{", no component starting with "." or ending in ".lock", no "/" or "." at the end.
 * One rule for every branch dacli passes to git: record_branch, --branch, and the `branch` /
 * `worktree.branch` a task file names (hand-edited, so hostile until it passes here).
 */
export function isBranchName(name: string): boolean {
  return (
    name !== '' &&
    name !== 'HEAD' &&
    name !== '@' &&
    !name.startsWith('-') &&
    !name.startsWith('/') &&
    !name.startsWith('refs/') &&
    !name.endsWith('/') &&
    !name.endsWith('.') &&
    !name.includes('..') &&
    !name.includes('//') &&
    !name.includes('@{') &&
    !/[\s\u0000-\u001f\u007f~^:?*[\\]/.test(name) &&
    name.split('/').every((c) => c !== '' && !c.startsWith('.') && !c.endsWith('.lock'))
  )
}
