// The documents the page reads: the same zod-derived types the commands answer with.

export type { AgentListDocT as AgentList } from '../../features/agent/json.js'
export type { BoardDocT as Board } from '../../features/board/json.js'
export type { EventListDocT as EventList } from '../../features/events/json.js'
export type { CriticalPathDocT as CriticalPath } from '../../features/insight/json.js'
export type { NoteListDocT as NoteList } from '../../features/note/json.js'
export type { ProjectListDocT as ProjectList } from '../../features/project/json.js'
export type { ThreadListDocT as ThreadList } from '../../features/questions/json.js'
export type {
  TaskChangeDocT as TaskChange,
  TaskDocT as Task,
  TaskListDocT as TaskList,
} from '../../features/task/json.js'

export type TaskItem = import('../../features/task/json.js').TaskListDocT['tasks'][number]
