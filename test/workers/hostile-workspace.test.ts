import { env } from 'cloudflare:workers'
import { d1Store, memoryStore } from '../../src/index.js'
import { describeHostileWorkspace } from '../hostile/workspace.js'
import { storeInsideDurableObject } from './durable-object-harness.js'

describeHostileWorkspace('memory (workerd)', async () => ({ store: memoryStore() }))
describeHostileWorkspace('durable-object (workerd)', async () => ({ store: storeInsideDurableObject('hostile-workspace') }))
describeHostileWorkspace('d1 (workerd)', async () => ({ store: d1Store(env.DB) }))
