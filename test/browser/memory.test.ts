import { memoryStore } from '../../src/index.js'
import { describeStoreConformance } from '../conformance/store-suite.js'
import { describeVfsDurability } from '../conformance/vfs-suite.js'
import { describeContentHash } from '../conformance/hash-suite.js'

describeStoreConformance('memory (browser)', async () => ({ store: memoryStore() }))
describeVfsDurability('memory (browser)', async () => ({ store: memoryStore() }))
describeContentHash('browser')
