import { add } from './add.js'
import { block } from './block.js'
import { check } from './check.js'
import { claim } from './claim.js'
import { depend } from './depend.js'
import { done } from './done.js'
import { edit } from './edit.js'
import { list } from './list.js'
import { log } from './log.js'
import { release } from './release.js'
import { renew } from './renew.js'
import { reopen } from './reopen.js'
import { rm } from './rm.js'
import { show } from './show.js'
import { unblock } from './unblock.js'
import { uncheck } from './uncheck.js'

export const commands = [
  add,
  list,
  show,
  claim,
  release,
  renew,
  check,
  uncheck,
  done,
  block,
  unblock,
  reopen,
  depend,
  edit,
  rm,
  log,
]
