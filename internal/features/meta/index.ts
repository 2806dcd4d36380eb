import { capabilities } from './capabilities.js'
import { catalog, help } from './help.js'
import { init } from './init.js'
import { schema } from './schema.js'
import { version } from './version.js'

export const commands = [init, help, catalog, schema, version, capabilities]
