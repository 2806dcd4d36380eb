// The closed vocabularies of delivery: diagnosis codes and evidence kinds, reconciliation finding classes, cleanup
// candidate kinds, journal classes, delivery states and stages. Imports nothing, so the published schemas
// (each slice's json.ts) name them without loading the code that computes them.

export const CODES = [
  'no_pr',
  'merged',
  'closed',
  'draft',
  'merge_conflict',
  'stale_base',
  'checks_pending',
  'checks_failed',
  'changes_requested',
  'approval_pending',
  'ready',
] as const

export const EVIDENCE_KINDS = [
  'searched',
  'merged',
  'closed',
  'draft',
  'conflict',
  'mergeability_unknown',
  'missing_commit',
  'check_pending',
  'check_failed',
  'check_passed',
  'changes_requested_by',
  'approved_by',
  'reviewer_requested',
  'approval_required',
] as const

export const FINDING_CLASSES = [
  'done_not_landed',
  'landed_not_done',
  'pr_merged_task_open',
  'branch_without_task',
  'worktree_without_task',
  'claim_on_closed_task',
  'remote_claim_without_task',
  'pr_without_task',
] as const

export const CANDIDATE_KINDS = [
  'finished_worktree',
  'merged_branch',
  'merged_remote_branch',
  'stale_claim_ref',
  'conflict_leftover',
  'temp_file',
  'dead_lock',
] as const

export const JOURNAL_CLASSES = ['applied', 'superseded', 'orphaned', 'unverifiable', 'live'] as const
export const ARCHIVABLE = ['applied', 'superseded', 'orphaned', 'unverifiable'] as const

/** The log verb of a task's landed work reaching a release train's target: delivery progress counts it released. */
export const PROMOTED = 'promoted'

export const DELIVERY_STATES = ['open', 'claimed', 'pr_open', 'ready', 'landed', 'released'] as const
export const STAGES = ['open_to_claimed', 'claimed_to_pr_open', 'pr_open_to_landed', 'landed_to_released'] as const
