import { capabilities } from './capabilities.js'
import { catalog } from './catalog.js'
import { help } from './help.js'
import { init } from './init.js'
import { schema } from './schema.js'
import { version } from './version.js'

export const commands = [init, help, catalog, schema, version, capabilities]
