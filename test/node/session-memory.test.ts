import { describe } from 'vitest'
import { memoryStore } from '../../src/index.js'
import { describeDurability } from '../session/durability.js'
import { describeIntent } from '../session/intent.js'
import { describeLifecycle } from '../session/lifecycle.js'
import { describeFileEvents } from '../session/file-events.js'

describe('session host on memory', () => {
  const store = memoryStore()
  describeLifecycle(async () => store)
  describeDurability(async () => store)
  describeIntent(async () => store)
  describeFileEvents(async () => store)
})
