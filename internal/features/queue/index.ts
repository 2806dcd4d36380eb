import { add } from './add.js'
import { advance } from './advance.js'
import { list } from './list.js'
import { next } from './next.js'
import { rm } from './rm.js'
import { show } from './show.js'

export const commands = [add, show, list, next, advance, rm]
