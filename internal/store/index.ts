// The store's public surface.

export { type AcceptEntry, acceptAll, acceptTask, checkTask, type Selection, uncheckTask } from './acceptance.js'
export { type AgentFile, lineageOf, listAgents, readAgent, retireAgent, spawnAgent } from './agents.js'
export * from './errors.js'
export { createEvent, type EventKind, type EventRecord, listEvents } from './events.js'
export { findTemps } from './fsio.js'
export { listAgentFiles, ROOT_ID, scanAgents } from './identity.js'
export {
  blockTask,
  type Change,
  claimTask,
  dependTask,
  doneTask,
  editTask,
  type Outcome,
  releaseTask,
  removeTask,
  renewClaim,
  reopenTask,
  unblockTask,
} from './lifecycle.js'
export { listLocks } from './lock.js'
export type { Broken, Estimate, Identity, Priority, ProjectRecord, Status, TaskRecord, TaskSummary } from './model.js'
export { PRIORITIES, STAGES, stamp } from './model.js'
export {
  addNote,
  addRisk,
  checkNotePolicy,
  type GlossaryEntry,
  LEVELS,
  listNotes,
  listRisks,
  NOTE_KINDS,
  type NoteKind,
  type NoteRecord,
  type RiskRecord,
  readGlossary,
  readNote,
  SEVERITIES,
  setGlossaryTerm,
} from './notes.js'
export { addProject, removeProject } from './projects.js'
export { rootPublicKeys } from './signing.js'
export { Store, type TaskEdit } from './store.js'
export { type SyncResult, syncEvents } from './sync.js'
export type { TaskFileRef } from './taskindex.js'
export { type AgentProblem, agentProblems, eventProblem } from './trust.js'
