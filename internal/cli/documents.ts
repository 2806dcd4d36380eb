// Every published document: schema id → zod definition (each slice's json.ts),
// and their JSON Schemas (draft 2020-12) as published under schemas/.

import { z } from 'zod'
import type { DocumentRegistry } from '../clikit/context.js'
import { documents as envelope } from '../clikit/envelope.schema.js'
import { documents as accept } from '../features/accept/json.js'
import { documents as agent } from '../features/agent/json.js'
import { documents as board } from '../features/board/json.js'
import { documents as claims } from '../features/claims/json.js'
import { documents as context } from '../features/context/json.js'
import { documents as delivery } from '../features/delivery/json.js'
import { documents as doctor } from '../features/doctor/json.js'
import { documents as events } from '../features/events/json.js'
import { documents as explain } from '../features/explain/json.js'
import { documents as github } from '../features/github/json.js'
import { documents as insight } from '../features/insight/json.js'
import { documents as lint } from '../features/lint/json.js'
import { documents as meta } from '../features/meta/json.js'
import { documents as metrics } from '../features/metrics/json.js'
import { documents as milestone } from '../features/milestone/json.js'
import { documents as note } from '../features/note/json.js'
import { documents as pr } from '../features/pr/json.js'
import { documents as project } from '../features/project/json.js'
import { documents as questions } from '../features/questions/json.js'
import { documents as queue } from '../features/queue/json.js'
import { documents as record } from '../features/record/json.js'
import { documents as release } from '../features/release/json.js'
import { documents as risk } from '../features/risk/json.js'
import { documents as search } from '../features/search/json.js'
import { documents as shortcut } from '../features/shortcut/json.js'
import { documents as task } from '../features/task/json.js'
import { documents as trust } from '../features/trust/json.js'
import { documents as watch } from '../features/watch/json.js'
import { documents as worktree } from '../features/worktree/json.js'

const zodDocuments: Record<string, z.ZodType> = {
  ...envelope,
  ...meta,
  ...agent,
  ...project,
  ...task,
  ...claims,
  ...worktree,
  ...accept,
  ...note,
  ...risk,
  ...search,
  ...events,
  ...questions,
  ...queue,
  ...shortcut,
  ...insight,
  ...doctor,
  ...lint,
  ...explain,
  ...metrics,
  ...milestone,
  ...context,
  ...github,
  ...pr,
  ...delivery,
  ...release,
  ...record,
  ...watch,
  ...board,
  ...trust,
}

const BASE = 'https://dacli.dev/schemas/'

function jsonSchemaOf(id: string, schema: z.ZodType): Record<string, unknown> {
  const js = z.toJSONSchema(schema, { target: 'draft-2020-12' }) as Record<string, unknown>
  const { $schema, ...rest } = js
  return { $schema, $id: `${BASE}${id.replace('/', '.')}.schema.json`, title: id, ...rest }
}

export const registry: DocumentRegistry = {
  jsonSchemas() {
    const out: Record<string, Record<string, unknown>> = {}
    for (const id of Object.keys(zodDocuments).sort()) out[id] = jsonSchemaOf(id, zodDocuments[id] as z.ZodType)
    return out
  },
}
