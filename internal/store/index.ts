// The store's public surface.

export { type AcceptEntry, acceptAll, acceptTask, checkTask, uncheckTask } from './acceptance.js'
export { type AgentFile, lineageOf, listAgents, readAgent, retireAgent, spawnAgent } from './agents.js'
export * from './errors.js'
export { createEvent, type EventRecord, listEvents } from './events.js'
export { findTemps } from './fsio.js'
export { listAgentFiles, ROOT_ID, scanAgents } from './identity.js'
export {
  blockTask,
  type Change,
  claimTask,
  dependTask,
  doneTask,
  editTask,
  releaseTask,
  removeTask,
  renewClaim,
  reopenTask,
  unblockTask,
} from './lifecycle.js'
export { listLocks } from './lock.js'
export type { Broken, Identity, ProjectRecord, TaskRecord, TaskSummary } from './model.js'
export { PRIORITIES, STAGES, stamp } from './model.js'
export {
  addNote,
  addRisk,
  checkNotePolicy,
  LEVELS,
  listNotes,
  listRisks,
  NOTE_KINDS,
  type NoteRecord,
  type RiskRecord,
  readGlossary,
  readNote,
  SEVERITIES,
  setGlossaryTerm,
} from './notes.js'
export { addProject, removeProject } from './projects.js'
export { rootPublicKeys } from './signing.js'
export { Store } from './store.js'
export { syncEvents } from './sync.js'
export type { TaskFileRef } from './taskindex.js'
export { agentProblems, eventProblem } from './trust.js'
