import { list } from './list.js'
import { run } from './run.js'
import { show } from './show.js'

export const commands = [run, list, show]
