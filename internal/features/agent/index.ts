import { list } from './list.js'
import { retire } from './retire.js'
import { show } from './show.js'
import { spawn } from './spawn.js'
import { whoami } from './whoami.js'

export const commands = [whoami, spawn, list, show, retire]
