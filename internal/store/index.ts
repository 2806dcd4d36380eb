// The store's public surface.

export { type AgentFile, lineageOf, listAgents, readAgent, retireAgent, spawnAgent } from './agents.js'
export * from './errors.js'
export { hashToken, ROOT_ID } from './identity.js'
export { type InitResult, initWorkspace } from './init.js'
export type { Broken, Estimate, Identity, Priority, ProjectRecord, Status, TaskRecord, TaskSummary } from './model.js'
export { DEP_TYPES, PRIORITIES, PROJECT_STATUSES, STAGES, STATUSES, stamp, teOf } from './model.js'
export { addProject, projectContents, removeProject } from './projects.js'
export { Store, type TaskEdit } from './store.js'
export type { TaskFileRef } from './taskindex.js'
