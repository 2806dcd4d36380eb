import { add } from './add.js'
import { edit } from './edit.js'
import { list } from './list.js'
import { rm } from './rm.js'
import { show } from './show.js'

export const commands = [add, list, show, edit, rm]
