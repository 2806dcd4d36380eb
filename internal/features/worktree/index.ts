import { add } from './add.js'
import { list } from './list.js'
import { prune } from './prune.js'
import { remove } from './remove.js'

export const commands = [add, list, remove, prune]
