import { memoryStore } from '../../src/index.js'
import { describeStoreConformance } from '../conformance/store-suite.js'
import { describeVfsDurability } from '../conformance/vfs-suite.js'
import { describeContentHash } from '../conformance/hash-suite.js'

// The reference adapter inside workerd: proves the core itself runs in the Workers runtime.
describeStoreConformance('memory (workerd)', async () => ({ store: memoryStore() }))
describeVfsDurability('memory (workerd)', async () => ({ store: memoryStore() }))
describeContentHash('workerd')
