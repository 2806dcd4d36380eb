import { doctor } from './doctor.js'
import { link } from './link.js'
import { projection } from './projection.js'
import { pull } from './pull.js'
import { push } from './push.js'
import { sync } from './sync.js'

export const commands = [doctor, link, pull, push, sync, projection]
